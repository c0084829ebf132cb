import { DEFAULT_CATEGORY, DEFAULT_ITEM_ID, OFF_SALE, ON_SALE, SHOP_CATEGORIES, ShopItemCreateBody, type ShopItemAdmin } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { ImageUrlField, MoneyField, NumberField, SelectField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { ADMIN_SERVERS_KEY, fetchShopServers } from './api.ts';

/** The item's body with the delivery server as the select has it: 'default' (the server chooses), '' (none) or an id. */
const ItemFormSchema = ShopItemCreateBody.omit({ server_id: true }).extend({ server: z.string() });
type Values = z.output<typeof ItemFormSchema>;

function toBody({ server, ...item }: Values): ShopItemCreateBody {
  return { ...item, ...(server === 'default' ? {} : { server_id: server === '' ? null : Number(server) }) };
}

interface ItemFormProps {
  /** null for a new item. */
  item: ShopItemAdmin | null;
  onSave: (body: ShopItemCreateBody) => Promise<void>;
  onCancel: () => void;
}

/** §5: name, price ≥ 0, count ≥ 0, icon URL and Minecraft ID are required; description is optional. */
export function ItemForm({ item, onSave, onCancel }: ItemFormProps) {
  const servers = useQuery({ queryKey: ADMIN_SERVERS_KEY, queryFn: fetchShopServers });
  const form = useSchemaForm(ItemFormSchema, {
    defaultValues: {
      name: item?.name ?? '',
      price: item?.price ?? Number.NaN,
      count: item?.count ?? Number.NaN,
      icon: item?.icon ?? '',
      description: item?.description ?? '',
      category: (item?.category as Values['category']) ?? DEFAULT_CATEGORY,
      item_id_minecraft: item?.item_id_minecraft ?? DEFAULT_ITEM_ID,
      status: item?.status ?? ON_SALE,
      server: item ? (item.server_id === null ? '' : String(item.server_id)) : 'default',
    },
  });
  const status = item?.status ?? ON_SALE;
  const statuses = [ON_SALE, OFF_SALE, ...(status !== ON_SALE && status !== OFF_SALE ? [status] : [])];
  const fallback = servers.data?.servers.find((s) => s.id === servers.data?.default_server_id);
  const serverOptions = [
    ...(item ? [] : [{ value: 'default', label: fallback ? `По умолчанию: ${fallback.name}` : 'По умолчанию (единственный сервер с RCON)' }]),
    { value: '', label: 'Не выбран — выдача подождёт' },
    ...(servers.data?.servers ?? []).map((s) => ({ value: String(s.id), label: `${s.name}${s.rcon ? '' : ' (RCON не настроен)'}` })),
  ];
  return (
    <Form form={form} onSubmit={(values) => onSave(toBody(values))}>
      <div className="form-grid">
        <TextField name="name" label="Название" maxLength={100} autoComplete="off" />
        <TextField name="item_id_minecraft" label="Minecraft ID" maxLength={100} autoComplete="off" spellCheck={false} hint="Например, diamond_sword" />
        <MoneyField name="price" label="Цена, ₽" />
        <NumberField name="count" label="Количество" />
      </div>
      <ImageUrlField name="icon" label="Ссылка на иконку" placeholder="https://…" />
      <TextAreaField name="description" label="Описание" maxLength={2000} rows={3} />
      <div className="form-grid">
        <SelectField name="category" label="Категория" options={SHOP_CATEGORIES.map((c) => ({ value: c, label: c }))} />
        <SelectField name="status" label="Статус" options={statuses.map((s) => ({ value: s, label: s }))} />
      </div>
      {/* Mounted again once the servers are in, so the select shows the item's server among them. */}
      <SelectField
        key={servers.data ? 'servers' : 'loading'}
        name="server"
        label="Сервер выдачи"
        options={serverOptions}
        disabled={servers.isPending}
        hint={servers.isError ? 'Не удалось загрузить список серверов' : undefined}
      />
      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}
