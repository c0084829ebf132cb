import { describe, expect, it } from 'vitest';
import { HttpError } from './errors.ts';

describe('HttpError', () => {
  it('takes no stack trace for a refusal (4xx), keeps one for a server error, and leaves the limit as it was', () => {
    const before = Error.stackTraceLimit;
    const refusal = new HttpError(401, 'Требуется вход');
    expect(refusal.stack).toBe('Error: Требуется вход');
    expect(Error.stackTraceLimit).toBe(before);
    const failure = new HttpError(502, 'Платёжная система не ответила');
    expect(failure.stack).toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(before);
    expect(refusal.toBody()).toEqual({ error: 'Требуется вход', code: 'unauthorized' });
  });
});
