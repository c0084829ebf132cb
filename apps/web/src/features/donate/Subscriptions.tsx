import type { ConsentKind, DonateTier, SubscriptionProvider } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { CONSENT_MISSING, ConsentBoxes } from '../../components/ConsentBoxes.tsx';
import { useConfirm } from '../../components/useConfirm.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, formatRub } from '../../lib/format.ts';
import { fetchConsentsNeeded, LEGAL_CONSENTS_KEY, useLegal } from '../../providers/legal.ts';
import { useNotify } from '../../providers/notifications.tsx';
import {
  cancelSubscription,
  fetchMySubscriptions,
  fetchPaymentOptions,
  MY_SUBSCRIPTIONS_KEY,
  PAYMENT_OPTIONS_KEY,
  subscribe,
} from './community-api.ts';
import { tierNow } from './tierNow.ts';
import './community.css';

const RECURRING: SubscriptionProvider[] = ['yookassa', 'tbank'];

/**
 * «Подписаться» on a tier the owner offers by subscription: the first payment on the provider's
 * page saves the card, later periods are charged from it; the player is told so before paying.
 */
export function SubscribeBox({ tier }: { tier: DonateTier }) {
  const options = useQuery({ queryKey: PAYMENT_OPTIONS_KEY, queryFn: fetchPaymentOptions });
  const providers = (options.data?.providers ?? []).filter((p) => RECURRING.includes(p.id as SubscriptionProvider));
  const [provider, setProvider] = useState<SubscriptionProvider | null>(null);
  const [error, setError] = useState<string | null>(null);
  const chosen = provider ?? (providers[0]?.id as SubscriptionProvider | undefined) ?? null;
  // The same consents as a top-up asks once the owner has published the offer or the policy.
  const legal = useLegal();
  const documents = legal?.documents.some((d) => d.kind === 'offer' || d.kind === 'privacy') ?? false;
  const needed = useQuery({ queryKey: LEGAL_CONSENTS_KEY, queryFn: fetchConsentsNeeded, enabled: documents });
  const asked = documents ? (needed.data?.needed ?? []) : [];
  const [ticked, setTicked] = useState<ConsentKind[]>([]);
  const [consentErrors, setConsentErrors] = useState<Partial<Record<ConsentKind, string>>>({});
  const start = useMutation({
    mutationFn: () => subscribe(tier.id, chosen!, asked.length > 0 ? ticked.filter((k) => asked.includes(k)) : undefined),
    onSuccess: (r) => {
      if (r.confirmation_url) window.location.assign(r.confirmation_url);
      else setError('Платёж ещё создаётся: нажмите «Подписаться» ещё раз через пару секунд');
    },
    onError: (err) => setError(err instanceof ApiError ? err.message : 'Не удалось оформить подписку'),
  });
  if (!tier.subscription || !tier.sellable || providers.length === 0) return null;
  const amount = tierNow(tier, Date.now()).amount * tier.subscription_months;
  const every = tier.subscription_months === 1 ? 'каждый месяц' : `каждые ${tier.subscription_months} мес.`;
  return (
    <div className="subscribe-box stack" data-testid="subscribe-box">
      <p>
        <strong>Подписка:</strong> {formatRub(amount)} {every}. Карта сохранится у платёжной системы, и привилегия будет продлеваться сама;
        за 3 дня до списания придёт письмо. Отменить можно в личном кабинете в любой момент — оплаченный срок останется.
      </p>
      {providers.length > 1 && (
        <fieldset className="subscribe-providers">
          <legend>Способ оплаты</legend>
          {providers.map((p) => (
            <label key={p.id}>
              <input
                type="radio"
                name={`subscribe-provider-${tier.id}`}
                checked={chosen === p.id}
                onChange={() => setProvider(p.id as SubscriptionProvider)}
              />{' '}
              {p.name}
            </label>
          ))}
        </fieldset>
      )}
      <ConsentBoxes
        asked={asked}
        ticked={ticked}
        errors={consentErrors}
        onChange={(next) => {
          setTicked(next);
          setConsentErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !next.includes(k as ConsentKind))));
        }}
      />
      <button
        type="button"
        className="btn btn-gold"
        disabled={start.isPending || !chosen}
        onClick={() => {
          const missing = asked.filter((k) => !ticked.includes(k));
          setConsentErrors(Object.fromEntries(missing.map((k) => [k, CONSENT_MISSING[k]])));
          if (missing.length === 0) start.mutate();
        }}
      >
        {start.isPending ? 'Переходим к оплате…' : 'Подписаться'}
      </button>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The player's subscriptions in the cabinet: the next charge, the card, «Отменить подписку». */
export function MySubscriptions() {
  const subs = useQuery({ queryKey: MY_SUBSCRIPTIONS_KEY, queryFn: fetchMySubscriptions });
  const queryClient = useQueryClient();
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const cancel = useMutation({
    mutationFn: cancelSubscription,
    onSuccess: () => {
      notify('success', 'Подписка отменена: больше списаний не будет, оплаченный срок остаётся');
      void queryClient.invalidateQueries({ queryKey: MY_SUBSCRIPTIONS_KEY });
    },
    onError: (err) => notify('danger', err instanceof ApiError ? err.message : 'Не удалось отменить подписку'),
  });
  const list = subs.data ?? [];
  if (list.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="subs-h" data-testid="my-subscriptions">
      <h2 id="subs-h">Подписки</h2>
      <ul className="subscriptions">
        {list.map((s) => (
          <li key={s.id} className="subscription" data-testid="subscription">
            <div>
              <strong>{s.title}</strong> — {formatRub(s.amount)} за {s.months} мес. <span className="muted">({s.state_text})</span>
            </div>
            {s.next_charge_at && (
              <div>
                Следующее списание: {formatDate(s.next_charge_at)}
                {s.card && <> с карты •••• {s.card}</>}
              </div>
            )}
            {!s.next_charge_at && s.paid_until && <div>Оплачено до {formatDate(s.paid_until)}</div>}
            {(s.state === 'active' || s.state === 'past_due' || s.state === 'pending') && (
              <button
                type="button"
                className="btn btn-small"
                disabled={cancel.isPending}
                onClick={async () => {
                  if (
                    await confirm(`Отменить подписку ${s.title}? Больше списаний не будет, оплаченный срок останется.`, {
                      title: 'Отмена подписки',
                      confirmLabel: 'Отменить подписку',
                      danger: true,
                    })
                  )
                    cancel.mutate(s.id);
                }}
              >
                Отменить подписку
              </button>
            )}
          </li>
        ))}
      </ul>
      {dialog}
    </section>
  );
}
