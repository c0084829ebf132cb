import { describe, expect, it } from 'vitest';
import { promoStatus } from './promo-status.ts';

const day = 86_400_000;
const now = Date.UTC(2026, 11, 6, 12);
const code = { disabled: false, starts_at: null, ends_at: null, uses: 0, max_uses: null };

describe('a promo code’s status in the admin list', () => {
  it('reads its dates: ended, not started yet, running', () => {
    // «с 01.01.2025 до 01.02.2025», seen on 6.12.2026.
    expect(promoStatus({ ...code, starts_at: Date.UTC(2025, 0, 1), ends_at: Date.UTC(2025, 1, 1) }, now)).toEqual({
      text: 'Истёк',
      tone: 'danger',
    });
    expect(promoStatus({ ...code, ends_at: now }, now).text).toBe('Истёк');
    expect(promoStatus({ ...code, starts_at: now + day }, now)).toEqual({ text: 'Ещё не начался', tone: 'warning' });
    expect(promoStatus({ ...code, starts_at: now - day, ends_at: now + day }, now)).toEqual({ text: 'Действует', tone: 'success' });
    expect(promoStatus(code, now).text).toBe('Действует');
  });

  it('a switched-off or used-up code says so first', () => {
    expect(promoStatus({ ...code, disabled: true, ends_at: now - day }, now).text).toBe('Выключен');
    expect(promoStatus({ ...code, uses: 5, max_uses: 5 }, now).text).toBe('Использован полностью');
    expect(promoStatus({ ...code, uses: 4, max_uses: 5 }, now).text).toBe('Действует');
  });
});
