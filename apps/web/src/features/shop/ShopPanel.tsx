import type { ShopItem } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { Modal } from '../../components/Modal.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { addToCart } from '../../lib/cart-edit.ts';
import { formatRub } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { CATEGORY_TABS_KEY, fetchPublicCategories, fetchShop, ORDERS_KEY, SHOP_KEY } from './api.ts';
import { ItemPurchase } from './ItemPurchase.tsx';
import { isSoldOut, limitText, priceText, saleText, stockText } from './itemText.ts';
import './shop.css';
import { FieldShell } from '../../components/form/FieldShell.tsx';

type Sort = 'default' | 'cheap' | 'dear' | 'name';
const SORTS: { id: Sort; label: string }[] = [
  { id: 'default', label: 'По порядку' },
  { id: 'cheap', label: 'Сначала дешёвые' },
  { id: 'dear', label: 'Сначала дорогие' },
  { id: 'name', label: 'По названию' },
];
const ALL = '';

/** The minute now, ticking, for the sales' countdowns. */
function useMinute(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(id);
  }, []);
  return now;
}

/** The shop for everyone (/shop and the profile's tab): category tabs, search, sort, details, the cart and the purchase modal. */
export function ShopPanel() {
  const { user, setBalance } = useAuth();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const headingId = useId();
  const searchId = useId();
  const sortId = useId();
  const items = useQuery({ queryKey: SHOP_KEY, queryFn: fetchShop });
  const categories = useQuery({ queryKey: CATEGORY_TABS_KEY, queryFn: fetchPublicCategories });
  const [category, setCategory] = useState(ALL);
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>('default');
  const [buyingId, setBuyingId] = useState<number | null>(null);
  const [detailsId, setDetailsId] = useState<number | null>(null);
  const now = useMinute();
  // The open modal follows the list, so a reload after a refusal shows the new stock.
  const buying = items.data?.find((i) => i.id === buyingId) ?? null;
  const details = items.data?.find((i) => i.id === detailsId) ?? null;

  const shown = useMemo(() => {
    const words = search.toLowerCase().split(/\s+/).filter(Boolean);
    const list = (items.data ?? []).filter(
      (i) =>
        (category === ALL || i.category.toLowerCase() === category.toLowerCase()) &&
        words.every((w) => i.name.toLowerCase().includes(w) || i.description.toLowerCase().includes(w)),
    );
    if (sort === 'cheap') return [...list].sort((a, b) => a.price - b.price);
    if (sort === 'dear') return [...list].sort((a, b) => b.price - a.price);
    if (sort === 'name') return [...list].sort((a, b) => a.name.localeCompare(b.name, 'ru'));
    return list;
  }, [items.data, category, search, sort]);

  const reload = () => void queryClient.invalidateQueries({ queryKey: SHOP_KEY });
  const buy = (item: ShopItem) => {
    setDetailsId(null);
    // A guest logs in first and comes back here.
    if (!user) navigate('/login', { state: { from: '/shop' } });
    else setBuyingId(item.id);
  };
  const add = (item: ShopItem) => {
    addToCart(item.id);
    notify('success', `«${item.name}» в корзине`);
  };
  const tabs = [
    { id: ALL, label: 'Все' },
    ...(categories.data ?? []).map((c) => ({ id: c.name, label: c.sale_percent ? `${c.name} −${c.sale_percent}%` : c.name })),
  ];

  return (
    <section className="shop-panel stack" aria-labelledby={headingId}>
      <div className="shop-head">
        <h2 id={headingId}>Товары</h2>
        {user && (
          <p className="shop-balance">
            Баланс: <strong data-testid="shop-balance">{formatRub(user.balance)}</strong>
          </p>
        )}
      </div>

      <div className="shop-filters">
        <FieldShell id={searchId} label="Поиск">
          <input
            id={searchId}
            type="search"
            value={search}
            placeholder="Название или описание"
            onChange={(e) => setSearch(e.target.value)}
          />
        </FieldShell>
        <FieldShell id={sortId} label="Сортировка">
          <select id={sortId} value={sort} onChange={(e) => setSort(e.target.value as Sort)}>
            {SORTS.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </FieldShell>
      </div>

      <Tabs tabs={tabs} active={category} onChange={setCategory} label="Категории">
        {items.isPending ? (
          <Loading text="Загрузка товаров..." />
        ) : items.isError ? (
          <Empty>
            <p>Ошибка загрузки товаров</p>
            <button type="button" className="btn btn-small" onClick={() => void items.refetch()}>
              Повторить
            </button>
          </Empty>
        ) : items.data.length === 0 ? (
          <Empty>В магазине пока нет доступных товаров</Empty>
        ) : shown.length === 0 ? (
          <Empty>Ничего не нашлось</Empty>
        ) : (
          <ul className="shop-grid" aria-label="Товары">
            {shown.map((item) => (
              <li key={item.id}>
                <ItemCard item={item} now={now} onBuy={() => buy(item)} onAdd={() => add(item)} onDetails={() => setDetailsId(item.id)} />
              </li>
            ))}
          </ul>
        )}
      </Tabs>

      <Modal open={details !== null} title={details?.name ?? ''} onClose={() => setDetailsId(null)}>
        {details && <ItemDetails item={details} now={now} onBuy={() => buy(details)} onAdd={() => add(details)} />}
      </Modal>

      {user && (
        <ItemPurchase
          item={buying}
          balance={user.balance}
          onClose={() => setBuyingId(null)}
          onBought={(newBalance, message) => {
            setBuyingId(null);
            setBalance(newBalance);
            notify('success', message);
            reload();
            void queryClient.invalidateQueries({ queryKey: ORDERS_KEY });
          }}
          onFailed={reload}
        />
      )}
    </section>
  );
}

function Price({ item, now }: { item: ShopItem; now: number }) {
  return (
    <>
      <p className="shop-card-price">
        {item.old_price !== null && (
          <s className="shop-old-price" aria-label={`Старая цена ${formatRub(item.old_price)}`}>
            {formatRub(item.old_price)}
          </s>
        )}{' '}
        {priceText(item)}
      </p>
      {item.old_price !== null && <p className="shop-sale">{saleText(item.sale_ends_at, now)}</p>}
    </>
  );
}

interface CardProps {
  item: ShopItem;
  now: number;
  onBuy: () => void;
  onAdd: () => void;
}

function ItemCard({ item, now, onBuy, onAdd, onDetails }: CardProps & { onDetails: () => void }) {
  const nameId = useId();
  const soldOut = isSoldOut(item);
  const stock = stockText(item);
  return (
    <article className="shop-card" aria-labelledby={nameId} data-testid={`shop-item-${item.id}`}>
      <img src={item.icon} alt="" width={64} height={64} loading="lazy" className="pixelated shop-icon" />
      <h3 id={nameId} className="shop-card-name">
        {item.name}
      </h3>
      <p className="shop-card-category">{item.category}</p>
      {item.description && <p className="shop-card-description">{item.description}</p>}
      <Price item={item} now={now} />
      {stock && (
        <p className="shop-card-count" data-testid="shop-item-count">
          {stock}
        </p>
      )}
      <div className="shop-card-actions">
        <button
          type="button"
          className="btn btn-primary btn-block"
          disabled={soldOut}
          onClick={onBuy}
          aria-label={soldOut ? `Закончился: ${item.name}` : `Купить: ${item.name}`}
        >
          {soldOut ? 'Закончился' : 'Купить'}
        </button>
        {!soldOut && (
          <button type="button" className="btn btn-block" onClick={onAdd} aria-label={`В корзину: ${item.name}`}>
            В корзину
          </button>
        )}
        <button type="button" className="btn btn-ghost btn-small btn-block" onClick={onDetails} aria-label={`Подробнее: ${item.name}`}>
          Подробнее
        </button>
      </div>
    </article>
  );
}

function ItemDetails({ item, now, onBuy, onAdd }: CardProps) {
  const soldOut = isSoldOut(item);
  const limit = limitText(item);
  return (
    <div className="stack shop-details">
      <div className="purchase-item">
        <img src={item.icon} alt="" width={64} height={64} className="pixelated shop-icon" />
        <div>
          <p className="muted">{item.category}</p>
          <Price item={item} now={now} />
        </div>
      </div>
      {item.description && <p className="shop-details-description">{item.description}</p>}
      <dl className="shop-facts">
        <dt>Одна покупка даёт</dt>
        <dd>
          {item.name} × {item.pieces} шт.
        </dd>
        <dt>Сервер</dt>
        <dd>{item.server_name ?? 'Будет указан администрацией'}</dd>
        <dt>В наличии</dt>
        <dd>{item.count === null ? 'Без ограничений' : `${Math.max(0, item.count)} шт.`}</dd>
        {limit && (
          <>
            <dt>Лимит</dt>
            <dd>{limit}</dd>
          </>
        )}
      </dl>
      <div className="form-actions">
        {!soldOut && (
          <button type="button" className="btn" onClick={onAdd}>
            В корзину
          </button>
        )}
        <button type="button" className="btn btn-primary" disabled={soldOut} onClick={onBuy}>
          {soldOut ? 'Закончился' : 'Купить'}
        </button>
      </div>
    </div>
  );
}
