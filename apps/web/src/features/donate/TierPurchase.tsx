import { PrivilegeBuyBody, type DonateTier, type UserPrivilege } from '@kubik/contract';
import { useQueries } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useController, useWatch } from 'react-hook-form';
import { useFormMeta, useSchemaForm } from '../../components/form/Form.tsx';
import { fieldDescribedBy, FieldNotes } from '../../components/form/FieldShell.tsx';
import { PromoField, promoRefusal, promoWaiting } from '../../components/PromoField.tsx';
import { PURCHASE_TEXTS, PurchaseForm, PurchaseModal } from '../../components/PurchaseModal.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, formatRub, plural } from '../../lib/format.ts';
import { tierNow } from './tierNow.ts';
import { buyTier, fetchQuote, quoteKey } from './privileges-api.ts';
import { TextField } from '../../components/form/fields.tsx';

interface TierPurchaseProps {
  tier: DonateTier | null;
  /** The player's running privilege, if any (its title names what a higher one blocks). */
  running: UserPrivilege | null;
  balance: number;
  onClose: () => void;
  onBought: (newBalance: number, message: string) => void;
}

export function TierPurchase({ tier, ...props }: TierPurchaseProps) {
  return (
    <PurchaseModal title="Покупка привилегии" open={tier !== null} onClose={props.onClose}>
      {tier && <TierForm key={tier.id} tier={tier} {...props} />}
    </PurchaseModal>
  );
}

const monthsText = (m: number) => `${m} ${plural(m, ['месяц', 'месяца', 'месяцев'])}`;
const daysText = (d: number) => `${d} ${plural(d, ['день', 'дня', 'дней'])}`;

function TierForm({ tier, running, balance, onClose, onBought }: TierPurchaseProps & { tier: DonateTier }) {
  const form = useSchemaForm(PrivilegeBuyBody, { defaultValues: { months: tier.periods[0]?.months ?? 1, promo_code: '', gift_to: '' } });
  const months = useWatch({ control: form.control, name: 'months' });
  const giftTo = (useWatch({ control: form.control, name: 'gift_to' }) as string | undefined)?.trim() ?? '';
  const typedCode = useWatch({ control: form.control, name: 'promo_code' }) as string | undefined;
  const [applied, setApplied] = useState<string | null>(null);
  const gift = giftTo !== '';
  const periods = tierNow(tier, Date.now()).periods;
  // What the server will take and do, said by the server before it does it, with the applied code
  // (a gift: the period as a new privilege, the recipient's own not being the buyer's to see).
  // Every period's quote at once, so switching periods shows its numbers without waiting.
  const quotes = useQueries({
    queries: tier.periods.map((p) => ({
      queryKey: quoteKey(tier.id, p.months, applied, gift),
      queryFn: () => fetchQuote(tier.id, p.months, applied, gift),
      gcTime: 0,
      retry: false,
    })),
  });
  const quote =
    quotes[
      Math.max(
        0,
        tier.periods.findIndex((p) => p.months === months),
      )
    ];
  const q = quote?.data;
  const promoError = applied !== null ? promoRefusal(quote?.error) : null;
  const failed = quote?.error instanceof ApiError ? quote.error : null;
  const refusal =
    !quote?.isError || promoError
      ? null
      : failed?.code === 'downgrade' && running && !gift
        ? `У вас действует более высокая привилегия ${running.title}. Купить ${tier.title}, пока она не закончилась, нельзя.`
        : failed?.message || PURCHASE_TEXTS.failed;

  return (
    <PurchaseForm
      form={form}
      className="form buy-form"
      balance={balance}
      total={q ? q.total : null}
      ready={!!q && !promoWaiting(typedCode, applied)}
      refusal={refusal}
      send={(body, key) => buyTier(tier.id, { ...body, promo_code: applied ?? undefined }, key)}
      onClose={onClose}
      onBought={onBought}
    >
      <p className="purchase-name">{tier.title}</p>
      <PeriodField periods={periods} />
      <PromoField
        state={{
          applied,
          checking: applied !== null && !!quote?.isPending,
          error: promoError,
          text: q?.promo?.text ?? null,
          discount: q?.promo?.discount ?? null,
        }}
        onApply={setApplied}
      />
      <TextField
        name="gift_to"
        label="Подарить игроку (необязательно)"
        hint="Ник получателя: привилегию получит он, оплатите вы"
        autoComplete="off"
      />

      <dl className="purchase-sum">
        {!gift && q?.kind === 'extend' && (
          <>
            <dt>Продление</dt>
            <dd>от {formatDate(q.starts_at)}</dd>
          </>
        )}
        {!gift && q?.kind === 'upgrade' && q.replaces && (
          <>
            <dt>Замена {q.replaces.title}</dt>
            <dd>
              зачтено {formatRub(q.credit)} за {daysText(q.replaces.unused_days)}
            </dd>
          </>
        )}
        {q?.promo && (
          <>
            <dt>Скидка по промокоду</dt>
            <dd data-testid="buy-discount">−{formatRub(q.promo.discount)}</dd>
          </>
        )}
        {gift && (
          <>
            <dt>Подарок игроку</dt>
            <dd className="purchase-gift-to">{giftTo}</dd>
          </>
        )}
        {q && !gift && (
          <>
            <dt>Действует до</dt>
            <dd data-testid="buy-until">{formatDate(q.expires_at)}</dd>
          </>
        )}
        {q && (
          <>
            <dt>Итого</dt>
            <dd data-testid="buy-total">{formatRub(q.total)}</dd>
          </>
        )}
        <dt>Ваш баланс</dt>
        <dd>{formatRub(balance)}</dd>
      </dl>
      {quote?.isPending && (
        <p className="muted" role="status">
          Считаем стоимость…
        </p>
      )}
    </PurchaseForm>
  );
}

/** The tier's periods as radio buttons, each with its price and discount; a refusal of the period stands under them. */
function PeriodField({ periods }: { periods: DonateTier['periods'] }) {
  const { field, fieldState } = useController({ name: 'months' });
  useFormMeta().setLabel('months', 'Срок');
  const errorId = useId();
  const error = fieldState.error?.message;
  return (
    <>
      <fieldset className="period-choice" aria-describedby={fieldDescribedBy(errorId, error)}>
        <legend>Срок</legend>
        {periods.map((p) => {
          const on = p.months === field.value;
          return (
            <label key={p.months} className={`period-option${on ? ' on' : ''}`}>
              <input
                type="radio"
                name={field.name}
                value={p.months}
                checked={on}
                ref={on ? field.ref : undefined}
                onBlur={field.onBlur}
                onChange={() => field.onChange(p.months)}
              />
              <span className="period-months">{monthsText(p.months)}</span>
              <span className="period-total">{formatRub(p.total)}</span>
              {p.discount > 0 && <span className="period-discount">−{p.discount} %</span>}
            </label>
          );
        })}
        <FieldNotes id={errorId} error={error} />
      </fieldset>
    </>
  );
}
