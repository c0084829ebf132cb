import type { PromoPreview } from '@kubik/contract';
import { TextField } from '../../components/form/fields.tsx';
import { formatRub } from '../../lib/format.ts';
import { PromoField } from './PromoField.tsx';

/** What a shop purchase (one item, the cart) asks last: a promo code and a player to give it to. */
export function PromoAndGift({ onPreview }: { onPreview: (promo: PromoPreview | null) => void }) {
  return (
    <>
      <PromoField onPreview={onPreview} />
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
