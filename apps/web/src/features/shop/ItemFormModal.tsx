import { DEFAULT_CATEGORY, DEFAULT_ITEM_ID, OFF_SALE, ON_SALE, SHOP_CATEGORIES, type ShopItemAdmin, type ShopItemCreateBody } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { ADMIN_SERVERS_KEY, fetchShopServers } from './api.ts';

interface Draft {
  name: string;
  price: string;
  count: string;
  icon: string;
  description: string;
  category: string;
  item_id_minecraft: string;
  status: string;
  /** '' = none; 'default' = let the server choose (new items only). */
  server: string;
}

function draftOf(item: ShopItemAdmin | null): Draft {
  if (!item) return { name: '', price: '', count: '', icon: '', description: '', category: DEFAULT_CATEGORY, item_id_minecraft: DEFAULT_ITEM_ID, status: ON_SALE, server: 'default' };
  return {
    name: item.name,
    price: String(item.price),
    count: String(item.count),
    icon: item.icon,
    description: item.description,
    category: item.category,
    item_id_minecraft: item.item_id_minecraft,
    status: item.status,
    server: item.server_id === null ? '' : String(item.server_id),
  };
}

const num = (v: string) => (v.trim() === '' ? NaN : Number(v.trim().replace(',', '.')));

/** §5: name, price ≥ 0, count ≥ 0, icon URL and Minecraft ID are required; description is optional. */
function check(d: Draft): string {
  if (!d.name.trim()) return 'Введите название';
  const price = num(d.price);
  if (!Number.isFinite(price)) return 'Укажите цену числом';
  if (price < 0) return 'Цена не может быть отрицательной';
  if (Math.abs(price * 100 - Math.round(price * 100)) > 1e-6) return 'Цена: не больше двух знаков после запятой';
  const count = num(d.count);
  if (!Number.isInteger(count)) return 'Укажите количество целым числом';
  if (count < 0) return 'Количество не может быть отрицательным';
  if (!d.icon.trim()) return 'Укажите ссылку на иконку';
  if (!/^https?:\/\/\S+$/i.test(d.icon.trim()) && !/^\/[^\s/]\S*$/.test(d.icon.trim())) return 'Иконка: укажите ссылку вида https://… или /…';
  if (!d.item_id_minecraft.trim()) return 'Укажите Minecraft ID';
  return '';
}

interface ItemFormModalProps {
  /** undefined: closed; null: a new item; otherwise the item being edited. */
  item: ShopItemAdmin | null | undefined;
  saving: boolean;
  error: string;
  onClose: () => void;
  onSave: (body: ShopItemCreateBody) => void;
  onInvalid: (text: string) => void;
}

export function ItemFormModal({ item, saving, error, onClose, onSave, onInvalid }: ItemFormModalProps) {
  return (
    <Modal open={item !== undefined} title={item ? 'Изменить товар' : 'Добавить товар'} onClose={onClose} wide>
      {item !== undefined && <ItemForm key={item?.id ?? 'new'} item={item} saving={saving} error={error} onClose={onClose} onSave={onSave} onInvalid={onInvalid} />}
    </Modal>
  );
}

function ItemForm({ item, saving, error, onClose, onSave, onInvalid }: ItemFormModalProps & { item: ShopItemAdmin | null }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(item));
  const [problem, setProblem] = useState('');
  const servers = useQuery({ queryKey: ADMIN_SERVERS_KEY, queryFn: fetchShopServers });
  const ids = { description: useId(), category: useId(), server: useId(), status: useId(), error: useId() };
  const set = (key: keyof Draft) => (e: { target: { value: string } }) => {
    setProblem('');
    setDraft((d) => ({ ...d, [key]: e.target.value }));
  };

  const defaultServer = servers.data?.servers.find((s) => s.id === servers.data?.default_server_id);
  const statuses = [ON_SALE, OFF_SALE, ...(draft.status !== ON_SALE && draft.status !== OFF_SALE ? [draft.status] : [])];

  function submit(e: FormEvent) {
    e.preventDefault();
    const text = check(draft);
    if (text) {
      setProblem(text);
      onInvalid(text);
      return;
    }
    onSave({
      name: draft.name.trim(),
      price: num(draft.price),
      count: num(draft.count),
      icon: draft.icon.trim(),
      description: draft.description,
      category: draft.category as ShopItemCreateBody['category'],
      item_id_minecraft: draft.item_id_minecraft.trim(),
      status: draft.status,
      ...(draft.server === 'default' ? {} : { server_id: draft.server === '' ? null : Number(draft.server) }),
    });
  }

  const shown = problem || error;
  return (
    <form className="form shop-item-form" onSubmit={submit} noValidate aria-describedby={shown ? ids.error : undefined}>
      <div className="shop-form-grid">
        <Field label="Название" name="name" value={draft.name} onChange={set('name')} required maxLength={100} autoComplete="off" />
        <Field label="Minecraft ID" name="item_id_minecraft" value={draft.item_id_minecraft} onChange={set('item_id_minecraft')} required maxLength={100} autoComplete="off" hint="Например, diamond_sword" spellCheck={false} />
        <Field label="Цена, ₽" name="price" type="number" inputMode="decimal" min={0} step="0.01" value={draft.price} onChange={set('price')} required />
        <Field label="Количество" name="count" type="number" inputMode="numeric" min={0} step={1} value={draft.count} onChange={set('count')} required />
      </div>
      <Field label="Ссылка на иконку" name="icon" type="url" value={draft.icon} onChange={set('icon')} required placeholder="https://…" autoComplete="off" />
      <div className="field">
        <label htmlFor={ids.description}>Описание</label>
        <textarea id={ids.description} name="description" value={draft.description} onChange={set('description')} maxLength={2000} rows={3} />
      </div>
      <div className="shop-form-grid">
        <div className="field">
          <label htmlFor={ids.category}>Категория</label>
          <select id={ids.category} name="category" value={draft.category} onChange={set('category')}>
            {SHOP_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.status}>Статус</label>
          <select id={ids.status} name="status" value={draft.status} onChange={set('status')}>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="field">
        <label htmlFor={ids.server}>Сервер выдачи</label>
        <select id={ids.server} name="server" value={draft.server} onChange={set('server')} disabled={servers.isPending}>
          {item === null && <option value="default">{defaultServer ? `По умолчанию: ${defaultServer.name}` : 'По умолчанию (единственный сервер с RCON)'}</option>}
          <option value="">Не выбран — выдача подождёт</option>
          {servers.data?.servers.map((s) => (
            <option key={s.id} value={String(s.id)}>
              {s.name}
              {s.rcon ? '' : ' (RCON не настроен)'}
            </option>
          ))}
        </select>
        {servers.isError && <span className="field-error">Не удалось загрузить список серверов</span>}
      </div>
      {shown && (
        <p className="notice notice-danger" role="alert" id={ids.error}>
          {shown}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onClose}>
          Отмена
        </button>
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving ? 'Сохраняем…' : 'Сохранить'}
        </button>
      </div>
    </form>
  );
}
