import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { TextField } from '../../components/form/fields.tsx';
import { PromoField, promoRefusal, promoWaiting, type PromoPreviewState } from '../../components/PromoField.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatRub } from '../../lib/format.ts';
import { previewPromo } from './api.ts';

export interface ShopPromo {
  state: PromoPreviewState;
  apply: (code: string | null) => void;
  /** Roubles to pay and taken off by the code: the server's preview while a code is applied, else the list price. */
  total: number;
  discount: number;
  /** Whether the purchase may be confirmed as shown (no code waiting for «Применить», the preview in). */
  ready: boolean;
  /** A refusal of the lines themselves that the preview met (stock, a limit). */
  refusal: string | null;
  /** The code to send: the applied one only. */
  code: string | undefined;
}

/**
 * The promo code of a shop purchase: the applied code's preview on these lines, from the server
 * (GET /api/shop/promo/{code}?lines=…), which counts the price and the discount as the purchase
 * will. `typed` is the form's promo_code as it stands; `full` is the lines' list price, shown while
 * no code is applied.
 */
export function useShopPromo(typed: string | undefined, lines: { shop_id: number; quantity: number }[], full: number): ShopPromo {
  const [applied, setApplied] = useState<string | null>(null);
  const key = lines.map((l) => `${l.shop_id}x${l.quantity}`).join(',');
  const counted = lines.length > 0 && lines.every((l) => l.quantity > 0);
  const preview = useQuery({
    queryKey: ['shop', 'promo-preview', applied, key],
    queryFn: () => previewPromo(applied!, lines),
    enabled: applied !== null && counted,
    retry: false,
    gcTime: 0,
  });
  const error = applied !== null ? promoRefusal(preview.error) : null;
  const refusal =
    applied !== null && preview.error && !error
      ? preview.error instanceof ApiError && preview.error.message
        ? preview.error.message
        : 'Не удалось проверить промокод'
      : null;
  const data = applied !== null ? preview.data : undefined;
  return {
    state: {
      applied,
      checking: applied !== null && counted && preview.isPending,
      error,
      text: data?.text ?? null,
      discount: data?.discount ?? null,
    },
    apply: setApplied,
    total: data?.total ?? full,
    discount: data?.discount ?? 0,
    ready: !promoWaiting(typed, applied) && (applied === null || data !== undefined),
    refusal,
    code: applied ?? undefined,
  };
}

/** What a shop purchase (one item, the cart) asks last: a promo code and a player to give it to. */
export function PromoAndGift({ promo }: { promo: ShopPromo }) {
  return (
    <>
      <PromoField state={promo.state} onApply={promo.apply} />
      <TextField
        name="gift_to"
        label="Подарить игроку (необязательно)"
        hint="Ник получателя: предметы получит он, оплатите вы"
        autoComplete="off"
      />
    </>
  );
}

/**
 * The sum of a shop purchase above its buttons: what a sale and a promo code take off, «Итого» and
 * «Ваш баланс». `testId` prefixes the figures the browser tests read (`cart-total`, `purchase-discount`).
 */
export function PurchaseSummary({
  testId,
  total,
  balance,
  discount,
  saved = 0,
}: {
  testId: 'cart' | 'purchase';
  total: number;
  balance: number;
  /** Roubles the promo code takes off. */
  discount: number;
  /** Roubles the items' sale prices take off their old prices. */
  saved?: number;
}) {
  return (
    <dl className="purchase-sum">
      {saved > 0 && (
        <>
          <dt>Скидка по акции</dt>
          <dd>−{formatRub(saved)}</dd>
        </>
      )}
      {discount > 0 && (
        <>
          <dt>Скидка по промокоду</dt>
          <dd data-testid={`${testId}-discount`}>−{formatRub(discount)}</dd>
        </>
      )}
      <dt>Итого</dt>
      <dd data-testid={`${testId}-total`}>{formatRub(total)}</dd>
      <dt>Ваш баланс</dt>
      <dd>{formatRub(balance)}</dd>
    </dl>
  );
}
