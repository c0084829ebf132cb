import { describe, expect, it } from 'vitest';
import { errorPlace, guestOrderText, nextStep, UNKNOWN_NICKNAME_WARNING } from './guest-order.ts';

const NBSP = '\u00a0';

describe("a guest order's next step", () => {
  it('goes straight to the provider for a known nickname at the price shown', () => {
    expect(nextStep({ amount: 270, known: true, confirmation_url: 'https://pay/1' }, 270)).toEqual({
      go: 'https://pay/1',
      payUrl: 'https://pay/1',
      warning: null,
      priceNote: null,
    });
  });
  it('stops with a warning beside an unknown nickname, the same payment offered', () => {
    expect(nextStep({ amount: 270, known: false, confirmation_url: 'https://pay/1' }, 270)).toEqual({
      go: null,
      payUrl: 'https://pay/1',
      warning: UNKNOWN_NICKNAME_WARNING,
      priceNote: null,
    });
  });
  it('stops when the sum taken is not the one shown, naming both; kopecks of floating point do not count', () => {
    expect(nextStep({ amount: 300, known: true, confirmation_url: 'u' }, 270).priceNote).toBe(
      `Цена изменилась: к оплате 300${NBSP}₽, а не 270${NBSP}₽`,
    );
    expect(nextStep({ amount: 0.3, known: true, confirmation_url: 'u' }, 0.1 + 0.2).go).toBe('u');
  });
});

describe('where a refusal of a guest order goes', () => {
  it('beside the field it names, else above the button', () => {
    const fields = ['nickname', 'email', 'months', 'provider'] as const;
    expect(errorPlace('email', fields)).toBe('email');
    expect(errorPlace('months.0', fields)).toBe('months');
    expect(errorPlace('shop_id', fields)).toBe('form');
    expect(errorPlace(undefined, fields)).toBe('form');
  });
});

describe('what the page says back from the provider', () => {
  const tier = { kind: 'tier' as const, nickname: 'TierKid', item: 'VIP', quantity: 3 };
  it('names the tier and its months, or the item and its pieces, for the nickname, by the status', () => {
    expect(guestOrderText({ ...tier, status: 'paid' })).toBe(
      'Оплачено: привилегия VIP на 3 мес. для TierKid. Привилегия будет выдана в игре, когда игрок зайдёт на сервер.',
    );
    expect(guestOrderText({ kind: 'item', nickname: 'Bro', item: 'Алмаз', quantity: 2, status: 'paid' })).toBe(
      'Оплачено: Алмаз × 2 для Bro. Покупка будет выдана в игре, когда игрок зайдёт на сервер.',
    );
    expect(guestOrderText({ ...tier, status: 'canceled' })).toMatch(/^Оплата не прошла, заказ отменён/);
    expect(guestOrderText({ ...tier, status: 'pending' })).toMatch(/^Ждём подтверждения оплаты/);
  });
});
