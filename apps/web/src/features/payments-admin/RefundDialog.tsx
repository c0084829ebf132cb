import { PAYMENT_PROVIDER_TEXT, type AdminPaymentDetail } from '@kubik/contract';
import { RefundBody, refundBonusShare } from '@kubik/contract/payment-connections';
import { useWatch } from 'react-hook-form';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { MoneyField } from '../../components/form/fields.tsx';
import { formatRub } from '../../lib/format.ts';

const k = (roubles: number) => Math.round(roubles * 100);

/** The refund's amount: the contract's rule, at most what can go back now. */
function refundSchema(max: number) {
  return z.strictObject({
    amount: RefundBody.shape.amount.unwrap().refine((v) => k(v) <= k(max), `Не больше ${formatRub(max)}: столько сейчас можно вернуть`),
  });
}

/**
 * «Вернуть»: how much goes back to the card (all that is left by default, or a part), and —
 * said separately — what leaves the player's balance: that part and its share of the bonus.
 */
export function RefundDialog({
  data,
  onRefund,
  onCancel,
}: {
  data: AdminPaymentDetail;
  onRefund: (amount: number) => Promise<unknown>;
  onCancel: () => void;
}) {
  const p = data.payment;
  const start = Math.min(data.refund_left, data.refund_max);
  const form = useSchemaForm(refundSchema(data.refund_max), { defaultValues: { amount: start } });
  return (
    <Form form={form} onSubmit={async ({ amount }) => onRefund(amount)}>
      <p>
        Игрок {p.username}, платёж через {PAYMENT_PROVIDER_TEXT[p.provider]} на {formatRub(p.amount)}
        {p.refunded_amount > 0 && <>, уже возвращено {formatRub(p.refunded_amount)}</>}. Можно вернуть до {formatRub(data.refund_max)}
        {data.refund_max < data.refund_left && <> (на балансе игрока {formatRub(data.balance)})</>}.
      </p>
      <MoneyField name="amount" label="Вернуть на карту, ₽" />
      <Split data={data} />
      <p className="muted">Отменить возврат будет нельзя.</p>
      <FormErrors fields={false} />
      <FormActions onCancel={onCancel} submitLabel="Вернуть" pendingLabel="Возвращаем…" />
    </Form>
  );
}

function Split({ data }: { data: AdminPaymentDetail }) {
  const amount = useWatch<{ amount: number }, 'amount'>({ name: 'amount' });
  const p = data.payment;
  const part = typeof amount === 'number' && Number.isFinite(amount) && amount > 0 ? k(amount) : 0;
  const bonusTotal = k(p.bonus);
  const share = part > 0 ? refundBonusShare(k(p.amount), bonusTotal, k(p.refunded_amount), bonusTotal - k(data.bonus_left), part) : 0;
  return (
    <dl className="payment-facts refund-split" aria-live="polite">
      <dt>На карту игрока</dt>
      <dd data-testid="refund-to-card">{formatRub(part / 100)}</dd>
      <dt>С баланса спишется</dt>
      <dd data-testid="refund-from-balance">
        {formatRub((part + share) / 100)}
        {share > 0 && <span className="muted"> (в том числе бонус {formatRub(share / 100)})</span>}
      </dd>
    </dl>
  );
}
