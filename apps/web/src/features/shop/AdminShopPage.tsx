import { useLocation } from 'wouter';
import { AdminPromoPage } from './AdminPromoPage.tsx';
import { LOW_STOCK, ON_SALE, type ShopItemAdmin, type ShopItemCreateBody } from '@kubik/contract';
import { useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowMenu } from '../../components/admin/RowMenu.tsx';
import { useCrud } from '../../components/admin/useCrud.ts';
import { Badge } from '../../components/Badge.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { AdminCategories } from './AdminCategories.tsx';
import { AdminDeliveries } from './AdminDeliveries.tsx';
import { ADMIN_ITEMS_KEY, createItem, deleteItem, fetchAdminItems, SHOP_KEY, updateItem } from './api.ts';
import { ItemForm } from './ItemForm.tsx';
import './shop.css';

const TABS = [
  { id: 'items', label: 'Товары' },
  { id: 'categories', label: 'Категории' },
  { id: 'deliveries', label: 'Выдача в игре' },
];

/** /admin/shop, and /admin/promo (Промокоды live in this chunk: one lazy page less on the first page). */
export default function AdminShopPage() {
  const [path] = useLocation();
  return path === '/admin/promo' ? <AdminPromoPage /> : <AdminShop />;
}

function AdminShop() {
  useTitle('Админ-панель: магазин');
  // ?tab=deliveries opens a tab directly (the overview links to the delivery queue).
  const [tab, setTab] = useState(() => {
    const asked = new URLSearchParams(window.location.search).get('tab');
    return TABS.some((t) => t.id === asked) ? asked! : 'items';
  });
  return (
    <section className="stack" aria-label="Магазин">
      <Tabs tabs={TABS} active={tab} onChange={setTab} label="Разделы магазина">
        {tab === 'items' ? <AdminItems /> : tab === 'categories' ? <AdminCategories /> : <AdminDeliveries />}
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
  const crud = useCrud<ShopItemAdmin, ShopItemCreateBody>({
    queryKey: ADMIN_ITEMS_KEY,
    list: fetchAdminItems,
    refresh: [ADMIN_ITEMS_KEY, SHOP_KEY],
    create: createItem,
    update: (item, body) => updateItem(item.id, body),
    remove: (item) => deleteItem(item.id),
    texts: {
      created: 'Товар добавлен!',
      updated: 'Товар обновлён!',
      removed: 'Товар удалён!',
      saveFailed: (err) => err.message || 'Ошибка сохранения товара',
      removeFailed: (err) => err.message || 'Ошибка удаления товара',
      confirmRemove: () => 'Вы уверены, что хотите удалить этот товар?',
    },
  });

  const columns: Column<ShopItemAdmin>[] = [
    {
      header: 'Иконка',
      kind: 'media',
      cell: (i) => <img src={i.icon} alt="" width={32} height={32} loading="lazy" className="pixelated shop-icon" />,
    },
    {
      header: 'Название',
      kind: 'main',
      cell: (i) => (
        <>
          {i.name}
          {(i.pieces > 1 || i.commands.length > 0) && (
            <div className="muted-small">
              {i.pieces > 1 && `${i.pieces} шт. за покупку`}
              {i.pieces > 1 && i.commands.length > 0 && ' · '}
              {i.commands.length > 0 && `своих команд: ${i.commands.length}`}
            </div>
          )}
        </>
      ),
    },
    { header: 'Цена', cell: (i) => formatRub(i.price), kind: 'num' },
    {
      header: 'Количество',
      cell: (i) => (
        <span className="shop-count">
          {i.count === null ? (
            <Badge tone="success">Без ограничения</Badge>
          ) : (
            <>
              <span className="shop-num">{i.count}</span> <StockBadge count={i.count} />
            </>
          )}
        </span>
      ),
    },
    { header: 'Категория', cell: (i) => i.category },
    { header: 'Minecraft ID', cell: (i) => <code>{i.item_id_minecraft}</code> },
    {
      header: 'Статус',
      cell: (i) => (i.status === ON_SALE ? <Badge tone="success">Активен</Badge> : <Badge tone="neutral">Неактивен</Badge>),
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (i) => <ItemMenu item={i} onEdit={() => crud.openEdit(i)} onDelete={() => crud.remove(i)} />,
    },
  ];

  return (
    <AdminSection
      title="Товары"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Добавить товар
        </button>
      }
    >
      <QueryState
        query={crud.list}
        loading="Загрузка товаров..."
        error="Ошибка загрузки товаров"
        empty="Товаров пока нет. Добавьте первый."
      >
        {(items) => (
          <DataTable
            label="Товары"
            rows={items}
            columns={columns}
            rowKey={(i) => i.id}
            rowProps={(i) => ({ 'data-testid': `admin-item-${i.id}` })}
          />
        )}
      </QueryState>
      {crud.dialog}
      <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить товар' : 'Добавить товар'} onClose={crud.close} wide>
        {crud.editing !== undefined && (
          <ItemForm key={crud.editing?.id ?? 'new'} item={crud.editing} onSave={crud.save} onCancel={crud.close} />
        )}
      </Modal>
    </AdminSection>
  );
}

/** Spec §2: a '...' menu with the item's details, «Изменить» and «Удалить». */
function ItemMenu({ item, onEdit, onDelete }: { item: ShopItemAdmin; onEdit: () => void; onDelete: () => void }) {
  const details = (
    <>
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
    </>
  );
  return <RowMenu label={`Действия с товаром «${item.name}»`} details={details} onEdit={onEdit} onDelete={onDelete} />;
}
