import { formatRub } from './format.ts';

// What a guest's order form does with the answer: the pure part, shared by /shop and /donate.

/** Shown beside the nickname when no account has it and no linked server has seen it (the order stands). */
export const UNKNOWN_NICKNAME_WARNING = 'Игрок с таким ником ещё не заходил на сервер — проверьте написание';

export interface GuestOrderAnswer {
  amount: number;
  known: boolean;
  confirmation_url: string | null;
}

export interface GuestNextStep {
  /** Go to the provider's page now; null: the guest looks first and pays with `payUrl`. */
  go: string | null;
  payUrl: string | null;
  /** Beside the nickname: nobody by that name is known. */
  warning: string | null;
  /** Above the button: the sum taken is not the one the form showed (a sale began or ended meanwhile). */
  priceNote: string | null;
}

/**
 * After the order is made: straight to the provider when the nickname is known and the sum is the
 * one shown; otherwise the form stops, says why, and offers the same payment (no second order).
 */
export function nextStep(answer: GuestOrderAnswer, shown: number | null): GuestNextStep {
  const url = answer.confirmation_url;
  const warning = answer.known ? null : UNKNOWN_NICKNAME_WARNING;
  const priceNote =
    shown !== null && Math.round(shown * 100) !== Math.round(answer.amount * 100)
      ? `Цена изменилась: к оплате ${formatRub(answer.amount)}, а не ${formatRub(shown)}`
      : null;
  const stop = warning !== null || priceNote !== null;
  return { go: stop ? null : url, payUrl: url, warning, priceNote };
}

/** Where a refusal goes: beside the form's field it names, or above the button (`form`). */
export function errorPlace<F extends string>(field: string | undefined, fields: readonly F[]): F | 'form' {
  const top = field?.split('.')[0];
  return fields.find((f) => f === top) ?? 'form';
}

/** What the page says about a guest's order on the way back from the provider. */
export function guestOrderText(o: { kind: 'item' | 'tier'; status: string; nickname: string; item: string; quantity: number }): string {
  const what = o.kind === 'tier' ? `привилегия ${o.item} на ${o.quantity} мес.` : `${o.item} × ${o.quantity}`;
  if (o.status === 'paid')
    return `Оплачено: ${what} для ${o.nickname}. ${o.kind === 'tier' ? 'Привилегия будет выдана' : 'Покупка будет выдана'} в игре, когда игрок зайдёт на сервер.`;
  if (o.status === 'canceled') return `Оплата не прошла, заказ отменён: ${what} для ${o.nickname}. Можно оформить его снова.`;
  return `Ждём подтверждения оплаты от платёжной системы: ${what} для ${o.nickname}…`;
}
