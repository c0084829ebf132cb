import { PrivilegeBuyBody, type DonateTier, type UserPrivilege } from '@kubik/contract';
import { useQueries } from '@tanstack/react-query';
import { useId } from 'react';
import { useController, useWatch } from 'react-hook-form';
import { useFormMeta, useSchemaForm } from '../../components/form/Form.tsx';
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
  const promo = (useWatch({ control: form.control, name: 'promo_code' }) as string | undefined)?.trim() ?? '';
  const periods = tierNow(tier, Date.now()).periods;
  const gift = periods.find((p) => p.months === months)?.total ?? null;
  // What the server will do, said by the server before it does it: every period's quote at once,
  // so switching periods shows its numbers without waiting. Read afresh at each opening.
  const quotes = useQueries({
    queries: tier.periods.map((p) => ({
      queryKey: quoteKey(tier.id, p.months),
      queryFn: () => fetchQuote(tier.id, p.months),
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
  const failed = quote?.error instanceof ApiError ? quote.error : null;
  // A gift is placed against the recipient's privilege, not the buyer's: the buyer's quote does not apply.
  const refusal =
    giftTo || !quote?.isError
      ? null
      : failed?.code === 'downgrade' && running
        ? `У вас действует более высокая привилегия ${running.title}. Купить ${tier.title}, пока она не закончилась, нельзя.`
        : failed?.message || PURCHASE_TEXTS.failed;

  return (
    <PurchaseForm
      form={form}
      className="form buy-form"
      balance={balance}
      total={giftTo ? gift : q ? q.total : null}
      ready={giftTo ? gift !== null : !!q}
      refusal={refusal}
      send={(body, key) => buyTier(tier.id, body, key)}
      onClose={onClose}
      onBought={onBought}
    >
      <p className="purchase-name">{tier.title}</p>
      <PeriodField periods={periods} />
      <TextField
        name="promo_code"
        label="Промокод (необязательно)"
        autoComplete="off"
        hint={promo ? 'Скидка по промокоду будет учтена при оплате' : undefined}
      />
      <TextField
        name="gift_to"
        label="Подарить игроку (необязательно)"
        hint="Ник получателя: привилегию получит он, оплатите вы"
        autoComplete="off"
      />

      <dl className="purchase-sum">
        {!giftTo && q?.kind === 'extend' && (
          <>
            <dt>Продление</dt>
            <dd>от {formatDate(q.starts_at)}</dd>
          </>
        )}
        {!giftTo && q?.kind === 'upgrade' && q.replaces && (
          <>
            <dt>Замена {q.replaces.title}</dt>
            <dd>
              зачтено {formatRub(q.credit)} за {daysText(q.replaces.unused_days)}
            </dd>
          </>
        )}
        {giftTo && gift !== null && (
          <>
            <dt>Подарок игроку {giftTo}</dt>
            <dd data-testid="buy-total">{formatRub(gift)}</dd>
          </>
        )}
        {q && !giftTo && (
          <>
            <dt>Действует до</dt>
            <dd data-testid="buy-until">{formatDate(q.expires_at)}</dd>
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
      <fieldset className="period-choice" aria-describedby={error ? errorId : undefined}>
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
      </fieldset>
      {error && (
        <p className="field-error period-error" id={errorId}>
          {error}
        </p>
      )}
    </>
  );
}
