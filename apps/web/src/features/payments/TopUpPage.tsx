import {
  bonusFor,
  OptionalPromoCode,
  PAYMENT_PROVIDERS,
  PAYMENT_TEXTS,
  PaymentAmount,
  type PaymentForm,
  type PaymentOptions,
  type PaymentProvider,
} from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { Link } from 'wouter';
import { z } from 'zod';
import { Form, FormErrors, useFormMeta, useSchemaForm } from '../../components/form/Form.tsx';
import { fieldDescribedBy, FieldNotes } from '../../components/form/FieldShell.tsx';
import { MoneyField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatRub } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { createPayment, fetchPaymentOptions, PAYMENT_OPTIONS_KEY } from './api.ts';
import type { ConsentKind } from '@kubik/contract';
import { fetchConsentsNeeded, LEGAL_CONSENTS_KEY, useLegal } from '../../providers/legal.ts';
import { CONSENT_MISSING, ConsentBoxes } from '../../components/ConsentBoxes.tsx';
import './payments.css';

/** Where the player pays: each provider shows its own page (cards, СБП…) after the redirect. */
const PROVIDER_NOTE: Record<PaymentProvider, string> = {
  yookassa: 'Оплата на странице ЮKassa',
  tbank: 'Оплата на странице Т-Банка',
  yoomoney: 'Оплата картой на странице ЮMoney',
  freekassa: 'Оплата на странице FreeKassa',
};

/** ЮMoney takes the payment from its quickpay form: the page posts it as a plain form would. */
function postForm(f: PaymentForm): void {
  const el = document.createElement('form');
  el.method = f.method;
  el.action = f.action;
  for (const [name, value] of Object.entries(f.fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    el.append(input);
  }
  document.body.append(el);
  el.submit();
}

const kopecks = (roubles: number) => Math.round(roubles * 100);

/** The contract's amount rule (roubles, at most two decimals) and this site's bounds, in the server's words. */
function topUpSchema(o: PaymentOptions) {
  return z
    .strictObject({
      amount: PaymentAmount.refine((v) => kopecks(v) >= kopecks(o.min), PAYMENT_TEXTS.amountMin(formatRub(o.min))).refine(
        (v) => kopecks(v) <= kopecks(o.max),
        PAYMENT_TEXTS.amountMax(formatRub(o.max)),
      ),
      provider: z.enum(PAYMENT_PROVIDERS, { error: 'Выберите способ оплаты' }),
      promo_code: OptionalPromoCode,
    })
    .superRefine((v, ctx) => {
      // Each provider may have its own bounds.
      const p = o.providers.find((x) => x.id === v.provider);
      if (!p) return;
      if (kopecks(v.amount) < kopecks(p.min))
        ctx.addIssue({ code: 'custom', path: ['amount'], message: PAYMENT_TEXTS.amountMin(formatRub(p.min)) });
      if (kopecks(v.amount) > kopecks(p.max))
        ctx.addIssue({ code: 'custom', path: ['amount'], message: PAYMENT_TEXTS.amountMax(formatRub(p.max)) });
    });
}
type TopUpValues = z.output<ReturnType<typeof topUpSchema>>;

/** «Пополнить баланс»: an amount (typed or a preset), a configured provider, then the provider's payment page. */
export default function TopUpPage() {
  useTitle('Пополнить баланс');
  const { user } = useAuth();
  const options = useQuery({ queryKey: PAYMENT_OPTIONS_KEY, queryFn: fetchPaymentOptions });
  return (
    <div className="stack topup-page">
      <header className="page-head">
        <h1>Пополнить баланс</h1>
      </header>
      <section className="card stack topup-card" aria-label="Пополнение баланса">
        {user && (
          <p className="topup-current">
            Сейчас на балансе: <strong data-testid="topup-balance">{formatRub(user.balance)}</strong>
          </p>
        )}
        <QueryState query={options} loading="Загрузка способов оплаты..." error="Не удалось загрузить способы оплаты">
          {(o) =>
            o.providers.length === 0 ? (
              <div className="empty" role="status">
                <p className="state-title">Пополнение баланса пока недоступно</p>
                <p className="muted">Администратор ещё не подключил ни одного способа оплаты. Загляните позже или напишите в поддержку.</p>
              </div>
            ) : (
              <TopUpForm options={o} />
            )
          }
        </QueryState>
      </section>
      <p className="muted topup-footer">
        Ваши платежи и их статусы — в <Link to="/profile">личном кабинете</Link>.
      </p>
    </div>
  );
}

function TopUpForm({ options }: { options: PaymentOptions }) {
  const schema = useMemo(() => topUpSchema(options), [options]);
  const form = useSchemaForm(schema, { mode: 'onTouched', defaultValues: { provider: options.providers[0]!.id } });
  // Set once the provider's page is being opened: the button stays «Переходим к оплате…» until the page is gone.
  const [leaving, setLeaving] = useState(false);

  // Back from the provider's page the browser may show this page from its cache, still «leaving».
  useEffect(() => {
    const back = (e: PageTransitionEvent) => e.persisted && setLeaving(false);
    window.addEventListener('pageshow', back);
    return () => window.removeEventListener('pageshow', back);
  }, []);

  // Once the owner published the offer or the policy: what the player has not accepted yet, and
  // once the age confirmation — separate boxes, not ticked in advance.
  const legal = useLegal();
  const documents = legal?.documents.some((d) => d.kind === 'offer' || d.kind === 'privacy') ?? false;
  const needed = useQuery({ queryKey: LEGAL_CONSENTS_KEY, queryFn: fetchConsentsNeeded, enabled: documents });
  const asked = documents ? (needed.data?.needed ?? []) : [];
  const [ticked, setTicked] = useState<ConsentKind[]>([]);
  const [consentErrors, setConsentErrors] = useState<Partial<Record<ConsentKind, string>>>({});

  async function pay(values: TopUpValues) {
    const missing = asked.filter((k) => !ticked.includes(k));
    setConsentErrors(Object.fromEntries(missing.map((k) => [k, CONSENT_MISSING[k]])));
    if (missing.length > 0) return;
    const created = await createPayment({
      amount: values.amount,
      provider: values.provider,
      promo_code: values.promo_code,
      ...(asked.length > 0 ? { consents: ticked.filter((k) => asked.includes(k)) } : {}),
    });
    void needed.refetch();
    setLeaving(true);
    if (created.form) postForm(created.form);
    else if (created.confirmation_url) window.location.assign(created.confirmation_url);
  }

  const busy = form.formState.isSubmitting || leaving;
  return (
    <Form form={form} onSubmit={pay} className="form topup-form" guard={false}>
      <AmountChoice options={options} />
      <ProviderChoice providers={options.providers} />
      <TextField
        name="promo_code"
        label="Промокод (необязательно)"
        autoComplete="off"
        hint="Код на бонус к пополнению добавит свой процент, когда платёж поступит"
      />
      <ConsentBoxes
        asked={asked}
        ticked={ticked}
        errors={consentErrors}
        onChange={(next) => {
          setTicked(next);
          setConsentErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !next.includes(k as ConsentKind))));
        }}
      />
      <FormErrors />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary topup-submit" disabled={busy}>
          {busy ? 'Переходим к оплате…' : 'Перейти к оплате'}
        </button>
      </div>
    </Form>
  );
}

function AmountChoice({ options }: { options: PaymentOptions }) {
  const { setValue, formState } = useFormContext<TopUpValues>();
  const amount = useWatch<TopUpValues, 'amount'>({ name: 'amount' });
  const presetsId = useId();
  const valid =
    typeof amount === 'number' &&
    PaymentAmount.safeParse(amount).success &&
    kopecks(amount) >= kopecks(options.min) &&
    kopecks(amount) <= kopecks(options.max);
  const bonus = valid ? bonusFor(kopecks(amount), options.bonus_rules) : 0;
  const rules = [...options.bonus_rules].sort((a, b) => a.from - b.from);

  return (
    <div className="stack topup-amount">
      <MoneyField
        name="amount"
        label="Сумма, ₽"
        placeholder="Например, 300"
        hint={`От ${formatRub(options.min)} до ${formatRub(options.max)}, можно с копейками: 150,50`}
      />
      {options.presets.length > 0 && (
        <div className="topup-presets" role="group" aria-labelledby={presetsId}>
          <span id={presetsId} className="visually-hidden">
            Быстрый выбор суммы
          </span>
          {options.presets.map((p) => {
            const presetBonus = bonusFor(kopecks(p), options.bonus_rules);
            return (
              <button
                key={p}
                type="button"
                className={`btn topup-preset${amount === p ? ' on' : ''}`}
                aria-pressed={amount === p}
                onClick={() =>
                  setValue('amount', p, {
                    shouldDirty: true,
                    shouldTouch: true,
                    shouldValidate: formState.isSubmitted || !!formState.errors.amount,
                  })
                }
              >
                {formatRub(p)}
                {presetBonus > 0 && (
                  <span className="topup-preset-bonus">
                    {' '}
                    +{formatRub(presetBonus / 100)}
                    <span className="visually-hidden"> бонусом</span>
                  </span>
                )}
              </button>
            );
          })}
        </div>
      )}
      {bonus > 0 ? (
        <p className="notice notice-success topup-bonus" role="status" data-testid="topup-bonus">
          Бонус +{formatRub(bonus / 100)}: на баланс придёт {formatRub((kopecks(amount!) + bonus) / 100)}
        </p>
      ) : rules.length > 0 ? (
        <p className="muted topup-rules">
          Бонусы к пополнению: {rules.map((r) => `от ${formatRub(r.from)} — +${String(r.percent).replace('.', ',')} %`).join('; ')}.
        </p>
      ) : null}
    </div>
  );
}

function ProviderChoice({ providers }: { providers: PaymentOptions['providers'] }) {
  const { register, formState } = useFormContext<TopUpValues>();
  const meta = useFormMeta();
  meta.setLabel('provider', 'Способ оплаты');
  const errorId = useId();
  const error = formState.errors.provider?.message;
  return (
    <fieldset className={`provider-choice${error ? ' field-invalid' : ''}`} aria-describedby={fieldDescribedBy(errorId, error)}>
      <legend>Способ оплаты</legend>
      {providers.map((p) => (
        <label key={p.id} className="provider-option">
          <input type="radio" value={p.id} {...register('provider')} />
          <span className="provider-text">
            <span className="provider-name">{p.name}</span>
            <span className="muted provider-note">{PROVIDER_NOTE[p.id]}</span>
          </span>
        </label>
      ))}
      <FieldNotes id={errorId} error={error} />
    </fieldset>
  );
}
