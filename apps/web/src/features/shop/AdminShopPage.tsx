import { LOW_STOCK, ON_SALE, type ShopItemAdmin, type ShopItemCreateBody } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useNotify } from '../../providers/notifications.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Dropdown } from '../../components/Dropdown.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { AdminDeliveries } from './AdminDeliveries.tsx';
import { ADMIN_ITEMS_KEY, createItem, deleteItem, fetchAdminItems, SHOP_KEY, updateItem } from './api.ts';
import { ItemFormModal } from './ItemFormModal.tsx';
import './shop.css';

const TABS = [
  { id: 'items', label: 'Товары' },
  { id: 'deliveries', label: 'Выдача в игре' },
];

const serverText = (err: unknown, fallback: string) => (err instanceof ApiError && err.message ? err.message : fallback);

export default function AdminShopPage() {
  useTitle('Админ-панель: магазин');
  const [tab, setTab] = useState('items');
  return (
    <section className="stack" aria-label="Магазин">
      <Tabs tabs={TABS} active={tab} onChange={setTab} label="Разделы магазина">
        {tab === 'items' ? <AdminItems /> : <AdminDeliveries />}
      </Tabs>
    </section>
  );
}

function StockBadge({ count }: { count: number }) {
  if (count <= 0) return <Badge tone="danger">Нет в наличии</Badge>;
  if (count <= LOW_STOCK) return <Badge tone="warning">Мало</Badge>;
  return <Badge tone="success">В наличии</Badge>;
}

function AdminItems() {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const headingId = useId();
  const items = useQuery({ queryKey: ADMIN_ITEMS_KEY, queryFn: fetchAdminItems });
  // undefined: closed; null: new item.
  const [editing, setEditing] = useState<ShopItemAdmin | null | undefined>(undefined);
  const [saveError, setSaveError] = useState('');

  useEffect(() => {
    if (items.isError) notify('danger', 'Ошибка загрузки товаров');
  }, [items.isError, notify]);

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ADMIN_ITEMS_KEY });
    void queryClient.invalidateQueries({ queryKey: SHOP_KEY });
  };

  const save = useMutation({
    mutationFn: (v: { id: number | null; body: ShopItemCreateBody }) => (v.id === null ? createItem(v.body) : updateItem(v.id, v.body)),
    onSuccess: (_r, v) => {
      notify('success', v.id === null ? 'Товар добавлен!' : 'Товар обновлён!');
      setEditing(undefined);
      refresh();
    },
    onError: (err) => {
      const text = serverText(err, 'Ошибка сохранения товара');
      setSaveError(text);
      notify('danger', text);
    },
  });

  const remove = useMutation({
    mutationFn: (item: ShopItemAdmin) => deleteItem(item.id),
    onSuccess: () => notify('success', 'Товар удалён!'),
    onError: (err) => notify('danger', serverText(err, 'Ошибка удаления товара')),
    onSettled: refresh,
  });

  const open = (item: ShopItemAdmin | null) => {
    setSaveError('');
    save.reset();
    setEditing(item);
  };

  return (
    <div className="stack">
      <div className="shop-admin-head">
        <h2 id={headingId}>Товары</h2>
        <button type="button" className="btn btn-primary" onClick={() => open(null)}>
          Добавить товар
        </button>
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
        <Empty>Товаров пока нет. Добавьте первый.</Empty>
      ) : (
        <div className="table-wrap shop-table-wrap">
          <table className="table shop-table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th>Иконка</th>
                <th>Название</th>
                <th className="shop-num">Цена</th>
                <th>Количество</th>
                <th>Категория</th>
                <th>Minecraft ID</th>
                <th>Статус</th>
                <th>
                  <span className="visually-hidden">Действия</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.data.map((item) => (
                <tr key={item.id} data-testid={`admin-item-${item.id}`}>
                  <td>
                    <img src={item.icon} alt="" width={32} height={32} loading="lazy" className="pixelated shop-icon" />
                  </td>
                  <td>{item.name}</td>
                  <td className="shop-num">{formatRub(item.price)}</td>
                  <td>
                    <span className="shop-count">
                      <span className="shop-num">{item.count}</span> <StockBadge count={item.count} />
                    </span>
                  </td>
                  <td>{item.category}</td>
                  <td>
                    <code>{item.item_id_minecraft}</code>
                  </td>
                  <td>{item.status === ON_SALE ? <Badge tone="success">Активен</Badge> : <Badge tone="neutral">Неактивен</Badge>}</td>
                  <td>
                    <Dropdown label={`Действия с товаром «${item.name}»`}>
                      {(close) => (
                        <>
                          <dl>
                            <dt>ID</dt>
                            <dd>{item.id}</dd>
                            <dt>Статус</dt>
                            <dd>{item.status}</dd>
                            <dt>Сервер</dt>
                            <dd>{item.server_name ?? 'не выбран'}</dd>
                            <dt>Описание</dt>
                            <dd>{item.description || '—'}</dd>
                            <dt>Иконка</dt>
                            <dd>{item.icon}</dd>
                            <dt>Изменён</dt>
                            <dd>{formatDateTime(item.updated_at)}</dd>
                          </dl>
                          <button
                            type="button"
                            onClick={() => {
                              close();
                              open(item);
                            }}
                          >
                            Изменить
                          </button>
                          <button
                            type="button"
                            className="shop-danger-item"
                            onClick={() => {
                              close();
                              if (window.confirm('Вы уверены, что хотите удалить этот товар?')) remove.mutate(item);
                            }}
                          >
                            Удалить
                          </button>
                        </>
                      )}
                    </Dropdown>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ItemFormModal
        item={editing}
        saving={save.isPending}
        error={saveError}
        onClose={() => setEditing(undefined)}
        onSave={(body) => save.mutate({ id: editing?.id ?? null, body })}
        onInvalid={(text) => notify('danger', text)}
      />
    </div>
  );
}
