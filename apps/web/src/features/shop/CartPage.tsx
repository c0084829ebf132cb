import { CheckoutBody, type ShopItem } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useWatch } from 'react-hook-form';
import { Link, useLocation } from 'wouter';
import { useSchemaForm } from '../../components/form/Form.tsx';
import { PurchaseForm } from '../../components/PurchaseModal.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import type { CartLine } from '../../lib/cart.ts';
import { setCart, useCart } from '../../lib/cart-edit.ts';
import { formatRub } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { checkout, fetchShop, ORDERS_KEY, SHOP_KEY } from './api.ts';
import { isSoldOut, maxQuantity, priceText } from './itemText.ts';
import { PromoAndGift, PurchaseSummary, useShopPromo } from './PurchaseParts.tsx';
import './shop.css';

const cents = (rub: number) => Math.round(rub * 100);

/** /cart: the lines kept in local storage with today's prices, a promo code, a gift, and one payment from the balance. */
export function CartPage() {
  useTitle('Корзина');
  const { user } = useAuth();
  const lines = useCart();
  const items = useQuery({ queryKey: SHOP_KEY, queryFn: fetchShop });
  const headingId = useId();

  const byId = new Map((items.data ?? []).map((i) => [i.id, i]));
  const known = lines.filter((l) => byId.has(l.shop_id));
  const gone = lines.length - known.length;
  const rows = known.map((l) => ({ line: l, item: byId.get(l.shop_id)! }));

  return (
    <div className="stack">
      <header className="page-head">
        <h1 id={headingId}>Корзина</h1>
        <p>
          <Link to="/shop">← Вернуться в магазин</Link>
        </p>
      </header>
      <section className="card stack" aria-labelledby={headingId}>
        {items.isPending ? (
          <Loading text="Загрузка товаров..." />
        ) : items.isError ? (
          <Empty>Ошибка загрузки товаров</Empty>
        ) : rows.length === 0 ? (
          <Empty>
            <p>Корзина пуста</p>
            <Link to="/shop" className="btn btn-primary">
              В магазин
            </Link>
          </Empty>
        ) : (
          <>
            {gone > 0 && <p className="notice notice-warning">Некоторых товаров больше нет в продаже: они убраны из корзины.</p>}
            <ul className="cart-lines" aria-label="Товары в корзине">
              {rows.map(({ line, item }) => (
                <CartRow key={item.id} line={line} item={item} lines={known} />
              ))}
            </ul>
            {user ? (
              <CheckoutForm key={known.map((l) => `${l.shop_id}:${l.quantity}`).join(',')} rows={rows} balance={user.balance} />
            ) : (
              <GuestCheckout rows={rows} />
            )}
          </>
        )}
      </section>
    </div>
  );
}

const subtotal = (rows: { line: CartLine; item: ShopItem }[]) => rows.reduce((s, r) => s + cents(r.item.price) * r.line.quantity, 0) / 100;

function GuestCheckout({ rows }: { rows: { line: CartLine; item: ShopItem }[] }) {
  const [, navigate] = useLocation();
  return (
    <div className="stack">
      <p className="cart-total">
        Итого: <strong>{formatRub(subtotal(rows))}</strong>
      </p>
      <p className="muted">Чтобы оплатить с баланса, войдите — корзина сохранится.</p>
      <button type="button" className="btn btn-primary" onClick={() => navigate('/login', { state: { from: '/cart' } })}>
        Войти и оплатить
      </button>
    </div>
  );
}

function CartRow({ line, item, lines }: { line: CartLine; item: ShopItem; lines: CartLine[] }) {
  const max = maxQuantity(item);
  const set = (quantity: number) =>
    setCart(
      quantity <= 0 ? lines.filter((l) => l.shop_id !== item.id) : lines.map((l) => (l.shop_id === item.id ? { ...l, quantity } : l)),
    );
  const soldOut = isSoldOut(item);
  return (
    <li className="cart-line" data-testid={`cart-line-${item.id}`}>
      <img src={item.icon} alt="" width={40} height={40} className="pixelated shop-icon" />
      <div className="cart-line-main">
        <p className="order-title">{item.name}</p>
        <p className="muted">
          {item.old_price !== null && <s className="shop-old-price">{formatRub(item.old_price)}</s>} {priceText(item)}
          {soldOut && ' · закончился'}
          {!soldOut && line.quantity > max && ` · доступно не больше ${max}`}
        </p>
      </div>
      <div className="stepper" role="group" aria-label={`Количество: ${item.name}`}>
        <button type="button" className="btn" aria-label="Уменьшить количество" onClick={() => set(line.quantity - 1)}>
          −
        </button>
        <span className="cart-qty" aria-live="polite">
          {line.quantity}
        </span>
        <button
          type="button"
          className="btn"
          aria-label="Увеличить количество"
          disabled={line.quantity >= max}
          onClick={() => set(line.quantity + 1)}
        >
          +
        </button>
      </div>
      <p className="cart-line-sum">{formatRub((cents(item.price) * line.quantity) / 100)}</p>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => set(0)} aria-label={`Убрать из корзины: ${item.name}`}>
        Убрать
      </button>
    </li>
  );
}

function CheckoutForm({ rows, balance }: { rows: { line: CartLine; item: ShopItem }[]; balance: number }) {
  const { setBalance } = useAuth();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const lines = rows.map((r) => r.line);
  const form = useSchemaForm(CheckoutBody, { defaultValues: { lines, promo_code: '', gift_to: '' } });
  // Keyed by the cart's lines (CartPage), so the form starts again whenever they change.
  const typedCode = useWatch({ control: form.control, name: 'promo_code' }) as string | undefined;
  const promo = useShopPromo(typedCode, lines, subtotal(rows));
  const total = promo.total;
  const saved =
    rows.reduce((s, r) => s + (r.item.old_price === null ? 0 : (cents(r.item.old_price) - cents(r.item.price)) * r.line.quantity), 0) / 100;
  return (
    <PurchaseForm
      form={form}
      balance={balance}
      total={total}
      ready={promo.ready}
      refusal={promo.refusal}
      send={(body, key) => checkout({ ...body, lines, promo_code: promo.code, expected_total: total }, key)}
      onClose={() => navigate('/shop')}
      onBought={(newBalance, message) => {
        setCart([]);
        setBalance(newBalance);
        notify('success', message);
        void queryClient.invalidateQueries({ queryKey: SHOP_KEY });
        void queryClient.invalidateQueries({ queryKey: ORDERS_KEY });
        navigate('/shop');
      }}
      onFailed={() => void queryClient.invalidateQueries({ queryKey: SHOP_KEY })}
    >
      <PromoAndGift promo={promo} />
      <PurchaseSummary testId="cart" total={total} balance={balance} discount={promo.discount} saved={saved} />
    </PurchaseForm>
  );
}
