import { SHOP_TEXTS, type ShopItem } from '@kubik/contract';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { Modal } from '../../components/Modal.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatRub } from '../../lib/format.ts';
import { TOPUP_PATH } from '../../lib/paths.ts';
import { buyItem, newIdempotencyKey } from './api.ts';

interface PurchaseModalProps {
  /** The item being bought (kept up to date by the list); null when closed. */
  item: ShopItem | null;
  balance: number;
  onClose: () => void;
  onBought: (newBalance: number, message: string) => void;
  /** After a refused purchase: the stock or the balance may have changed. */
  onFailed: () => void;
}

/** Kopeck-exact total in roubles. */
const totalOf = (price: number, quantity: number) => Math.round(price * 100 * quantity) / 100;

export function PurchaseModal({ item, balance, onClose, onBought, onFailed }: PurchaseModalProps) {
  return (
    <Modal open={item !== null} title="Подтверждение покупки" onClose={onClose}>
      {/* Keyed by item, so every opening starts again from quantity 1. */}
      {item && <PurchaseForm key={item.id} item={item} balance={balance} onClose={onClose} onBought={onBought} onFailed={onFailed} />}
    </Modal>
  );
}

function PurchaseForm({ item, balance, onClose, onBought, onFailed }: PurchaseModalProps & { item: ShopItem }) {
  const [quantity, setQuantity] = useState('1');
  const [processing, setProcessing] = useState(false);
  const [error, setError] = useState('');
  const inputId = useId();
  const errorId = useId();
  const stock = Math.max(0, item.count);

  const n = quantity === '' ? 0 : Number(quantity);
  const total = totalOf(item.price, n);
  const badQuantity = quantity !== '' && n <= 0;
  const insufficient = n > 0 && balance < total;
  const validation = badQuantity ? SHOP_TEXTS.badQuantity : insufficient ? SHOP_TEXTS.noFunds : '';
  const shown = validation || error;

  // Whole numbers only; above the stock is clamped to it; empty is allowed while typing.
  const change = (raw: string) => {
    setError('');
    const digits = raw.replace(/\D/g, '').slice(0, 9);
    if (digits === '') return setQuantity('');
    const value = Number(digits);
    setQuantity(String(Math.min(value, stock)));
  };
  const step = (delta: number) => change(String(Math.max(1, Math.min(stock, (n || 0) + delta))));

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (processing) return;
    if (quantity === '' || n <= 0) return setError(SHOP_TEXTS.badQuantity);
    if (balance < total) return setError(SHOP_TEXTS.noFunds);
    setProcessing(true);
    setError('');
    try {
      const answer = await buyItem({ shop_id: item.id, quantity: n }, newIdempotencyKey());
      onBought(answer.new_balance, answer.message);
    } catch (err) {
      setError(err instanceof ApiError && err.message ? err.message : 'Ошибка при покупке');
      setProcessing(false);
      onFailed();
    }
  }

  return (
    <form className="form purchase-form" onSubmit={submit} noValidate>
      <div className="purchase-item">
        <img src={item.icon} alt="" width={64} height={64} className="pixelated shop-icon" />
        <div>
          <p className="purchase-name">{item.name}</p>
          <p className="muted">
            {formatRub(item.price)} за шт. · в наличии {stock} шт.
          </p>
        </div>
      </div>

      <div className="field">
        <label htmlFor={inputId}>Количество</label>
        <div className="stepper">
          <button type="button" className="btn" aria-label="Уменьшить количество" disabled={processing || n <= 1} onClick={() => step(-1)}>
            −
          </button>
          <input
            id={inputId}
            name="quantity"
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={quantity}
            disabled={processing}
            aria-invalid={validation || error ? true : undefined}
            aria-describedby={shown ? errorId : undefined}
            onChange={(e) => change(e.target.value)}
          />
          <button
            type="button"
            className="btn"
            aria-label="Увеличить количество"
            disabled={processing || n >= stock}
            onClick={() => step(1)}
          >
            +
          </button>
        </div>
      </div>

      <dl className="purchase-sum">
        <dt>Итого</dt>
        <dd data-testid="purchase-total">{formatRub(total)}</dd>
        <dt>Ваш баланс</dt>
        <dd>{formatRub(balance)}</dd>
      </dl>

      {shown && (
        <p className="notice notice-danger" id={errorId} role="alert">
          {shown}
          {(insufficient || error === SHOP_TEXTS.noFunds) && (
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
        <button type="submit" className="btn btn-primary" disabled={processing || insufficient || quantity === ''}>
          {processing ? 'Покупаем…' : 'Подтвердить покупку'}
        </button>
      </div>
    </form>
  );
}
