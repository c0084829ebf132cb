import type { ShopItem } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { formatRub } from '../../lib/format.ts';
import { fetchShop, ORDERS_KEY, SHOP_KEY } from './api.ts';
import { ItemPurchase } from './ItemPurchase.tsx';
import './shop.css';

/** The item grid with the purchase modal; used by /shop and by the profile's shop tab. */
export function ShopPanel() {
  const { user, setBalance } = useAuth();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const headingId = useId();
  const items = useQuery({ queryKey: SHOP_KEY, queryFn: fetchShop });
  const [buyingId, setBuyingId] = useState<number | null>(null);
  // The open modal follows the list, so a reload after a refusal shows the new stock.
  const buying = items.data?.find((i) => i.id === buyingId) ?? null;
  const balance = user?.balance ?? 0;

  const reload = () => void queryClient.invalidateQueries({ queryKey: SHOP_KEY });

  return (
    <section className="shop-panel stack" aria-labelledby={headingId}>
      <div className="shop-head">
        <h2 id={headingId}>Товары</h2>
        <p className="shop-balance">
          Баланс: <strong data-testid="shop-balance">{formatRub(balance)}</strong>
        </p>
      </div>

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
      ) : (
        <ul className="shop-grid" aria-label="Товары">
          {items.data.map((item) => (
            <li key={item.id}>
              <ItemCard item={item} onBuy={() => setBuyingId(item.id)} />
            </li>
          ))}
        </ul>
      )}

      <ItemPurchase
        item={buying}
        balance={balance}
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
    </section>
  );
}

function ItemCard({ item, onBuy }: { item: ShopItem; onBuy: () => void }) {
  const nameId = useId();
  const soldOut = item.count <= 0;
  return (
    <article className="shop-card" aria-labelledby={nameId} data-testid={`shop-item-${item.id}`}>
      <img src={item.icon} alt="" width={64} height={64} loading="lazy" className="pixelated shop-icon" />
      <h3 id={nameId} className="shop-card-name">
        {item.name}
      </h3>
      <p className="shop-card-category">{item.category}</p>
      {item.description && <p className="shop-card-description">{item.description}</p>}
      <p className="shop-card-price">{formatRub(item.price)}</p>
      <p className="shop-card-count" data-testid="shop-item-count">
        {soldOut ? 'Нет в наличии' : `Осталось: ${item.count} шт.`}
      </p>
      <button
        type="button"
        className="btn btn-primary btn-block"
        disabled={soldOut}
        onClick={onBuy}
        aria-label={soldOut ? `Закончился: ${item.name}` : `Купить: ${item.name}`}
      >
        {soldOut ? 'Закончился' : 'Купить'}
      </button>
    </article>
  );
}
