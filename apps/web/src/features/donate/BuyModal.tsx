import type { DonateTier, UserPrivilege } from '@kubik/contract';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { Modal } from '../../components/Modal.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, formatRub, plural } from '../../lib/format.ts';
import { TOPUP_PATH } from '../../lib/paths.ts';
import { buyTier, newIdempotencyKey } from './privileges-api.ts';

const NO_FUNDS = 'Недостаточно средств на балансе';
const DAY_MS = 86_400_000;
const MONTH_DAYS = 30;

interface BuyModalProps {
  tier: DonateTier | null;
  /** The tiers in the admin's order (their rank), and the player's running privilege, if any. */
  tiers: DonateTier[];
  running: UserPrivilege | null;
  balance: number;
  onClose: () => void;
  onBought: (newBalance: number, message: string) => void;
}

export function BuyModal(props: BuyModalProps) {
  return (
    <Modal open={props.tier !== null} title="Покупка привилегии" onClose={props.onClose}>
      {props.tier && <BuyForm key={props.tier.id} {...props} tier={props.tier} />}
    </Modal>
  );
}

const monthsText = (m: number) => `${m} ${plural(m, ['месяц', 'месяца', 'месяцев'])}`;

function BuyForm({ tier, tiers, running, balance, onClose, onBought }: BuyModalProps & { tier: DonateTier }) {
  const [months, setMonths] = useState(tier.periods[0]?.months ?? 1);
  const [processing, setProcessing] = useState(false);
  const [error, setError] = useState('');
  // One key per opening: a double submit or a retried request buys once.
  const [key] = useState(newIdempotencyKey);
  const errorId = useId();
  const period = tier.periods.find((p) => p.months === months) ?? tier.periods[0];

  // What the server will do, said before it does it.
  const rank = (id: number) => tiers.findIndex((t) => t.id === id);
  const held = running ? tiers.find((t) => t.id === running.tier_id) : undefined;
  const now = Date.now();
  const sameTier = running?.tier_id === tier.id;
  const downgrade = !!(running && held && !sameTier && rank(held.id) > rank(tier.id));
  const upgrade = !!(running && !sameTier && !downgrade);
  const unusedDays = running ? Math.max(0, Math.floor((running.expires_at - now) / DAY_MS)) : 0;
  const credit =
    upgrade && held && held.sellable ? Math.min(period?.total ?? 0, Math.floor((held.amount * 100 * unusedDays) / MONTH_DAYS) / 100) : 0;
  const total = Math.round(((period?.total ?? 0) - credit) * 100) / 100;
  const insufficient = balance < total;
  const from = sameTier && running ? Math.max(running.expires_at, now) : now;
  const until = from + (period?.months ?? 0) * MONTH_DAYS * DAY_MS;
  const validation = downgrade
    ? `У вас действует более высокая привилегия ${held!.title}. Купить ${tier.title}, пока она не закончилась, нельзя.`
    : insufficient
      ? NO_FUNDS
      : '';
  const shown = validation || error;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (processing || !period) return;
    if (insufficient) return setError(NO_FUNDS);
    setProcessing(true);
    setError('');
    try {
      const answer = await buyTier(tier.id, period.months, key);
      onBought(answer.new_balance, answer.message);
    } catch (err) {
      setError(err instanceof ApiError && err.message ? err.message : 'Ошибка при покупке');
      setProcessing(false);
    }
  }

  return (
    <form className="form buy-form" onSubmit={submit} noValidate>
      <p className="purchase-name">{tier.title}</p>
      <fieldset className="period-choice" disabled={processing}>
        <legend>Срок</legend>
        {tier.periods.map((p) => (
          <label key={p.months} className={`period-option${p.months === months ? ' on' : ''}`}>
            <input
              type="radio"
              name="months"
              value={p.months}
              checked={p.months === months}
              onChange={() => (setMonths(p.months), setError(''))}
            />
            <span className="period-months">{monthsText(p.months)}</span>
            <span className="period-total">{formatRub(p.total)}</span>
            {p.discount > 0 && <span className="period-discount">−{p.discount} %</span>}
          </label>
        ))}
      </fieldset>

      <dl className="purchase-sum">
        {sameTier && (
          <>
            <dt>Продление</dt>
            <dd>от {formatDate(from)}</dd>
          </>
        )}
        {upgrade && running && (
          <>
            <dt>Замена {running.title}</dt>
            <dd>
              зачтено {formatRub(credit)} за {unusedDays} {plural(unusedDays, ['день', 'дня', 'дней'])}
            </dd>
          </>
        )}
        <dt>Действует до</dt>
        <dd data-testid="buy-until">{formatDate(until)}</dd>
        <dt>Итого</dt>
        <dd data-testid="buy-total">{formatRub(total)}</dd>
        <dt>Ваш баланс</dt>
        <dd>{formatRub(balance)}</dd>
      </dl>

      {shown && (
        <p className="notice notice-danger" id={errorId} role="alert">
          {shown}
          {insufficient && !downgrade && (
            <>
              {' '}
              <Link to={TOPUP_PATH} onClick={onClose}>
                Пополнить баланс
              </Link>
            </>
          )}
        </p>
      )}

      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Отмена
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={processing || insufficient || downgrade}
          aria-describedby={shown ? errorId : undefined}
        >
          {processing ? 'Покупаем…' : 'Подтвердить покупку'}
        </button>
      </div>
    </form>
  );
}
