import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { TokenSigner, UnsignedGrace } from './signed-tokens.ts';

const MINUTE = 60_000;

describe('TokenSigner', () => {
  const key = randomBytes(32);
  const b64 = new TokenSigner(key, 'session', { randomBytes: 32, macBytes: 16, encoding: 'base64url' });
  const hex = new TokenSigner(key, 'yggdrasil', { randomBytes: 16, macBytes: 8, encoding: 'hex' });

  it('issues tokens of its shape that it alone accepts', () => {
    expect(b64.length).toBe(65);
    expect(hex.length).toBe(48);
    const a = b64.issue();
    const h = hex.issue();
    expect(a).toMatch(/^[\w-]{65}$/);
    expect(h).toMatch(/^[0-9a-f]{48}$/);
    expect(b64.signed(a)).toBe(true);
    expect(hex.signed(h)).toBe(true);
    expect(b64.issue()).not.toBe(a);
    // Another key, another purpose with the same key and shape.
    expect(new TokenSigner(randomBytes(32), 'session', { randomBytes: 32, macBytes: 16, encoding: 'base64url' }).signed(a)).toBe(false);
    expect(new TokenSigner(key, 'gravit', { randomBytes: 16, macBytes: 8, encoding: 'hex' }).signed(h)).toBe(false);
  });

  it('refuses every changed character, spellings a decoder would accept, and other lengths', () => {
    const a = b64.issue();
    for (let i = 0; i < a.length; i++) {
      const c = a[i] === 'A' ? 'B' : 'A';
      expect(b64.signed(a.slice(0, i) + c + a.slice(i + 1)), `char ${i}`).toBe(false);
    }
    const h = hex.issue();
    expect(hex.signed(h.toUpperCase())).toBe(h === h.toUpperCase());
    expect(hex.signed(h.slice(0, -1) + (h.at(-1) === '0' ? '1' : '0'))).toBe(false);
    // base64 '+' and '/' decode like '-' and '_'; the text must be the site's own.
    const plus = a.replaceAll('-', '+').replaceAll('_', '/');
    expect(b64.signed(plus)).toBe(plus === a);
    for (const bad of ['', a.slice(0, -1), `${a}A`, 'x'.repeat(65), 'é'.repeat(65)]) expect(b64.signed(bad)).toBe(false);
  });
});

describe('UnsignedGrace', () => {
  it('answers from memory while unsigned tokens may live, then looks at most every ten minutes', async () => {
    const t0 = 1_000_000_000_000;
    let latest = t0 + 60 * MINUTE;
    const latestEnd = vi.fn(async (now: number) => (latest > now ? latest : 0));
    const grace = await UnsignedGrace.start(latestEnd, t0);
    expect(latestEnd).toHaveBeenCalledTimes(1);
    expect(await grace.mayBeLive(t0 + 59 * MINUTE)).toBe(true);
    expect(latestEnd).toHaveBeenCalledTimes(1);
    // Past the end: one look, shared by the tokens that came together.
    const after = t0 + 61 * MINUTE;
    expect(await Promise.all([grace.mayBeLive(after), grace.mayBeLive(after), grace.mayBeLive(after)])).toEqual([false, false, false]);
    expect(latestEnd).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 100; i++) expect(await grace.mayBeLive(after + i * 1000)).toBe(false);
    expect(latestEnd).toHaveBeenCalledTimes(2);
    // An older instance made one meanwhile: found at the next look.
    latest = after + 30 * MINUTE;
    expect(await grace.mayBeLive(after + 9 * MINUTE)).toBe(false);
    expect(await grace.mayBeLive(after + 10 * MINUTE)).toBe(true);
    expect(latestEnd).toHaveBeenCalledTimes(3);
  });

  it('a failed look refuses nothing for good: the next token asks again', async () => {
    const latestEnd = vi.fn(async () => 0);
    const grace = await UnsignedGrace.start(latestEnd, 0);
    latestEnd.mockRejectedValueOnce(new Error('connection lost'));
    await expect(grace.mayBeLive(11 * MINUTE)).rejects.toThrow('connection lost');
    latestEnd.mockResolvedValueOnce(30 * MINUTE);
    expect(await grace.mayBeLive(11 * MINUTE + 1)).toBe(true);
  });
});
