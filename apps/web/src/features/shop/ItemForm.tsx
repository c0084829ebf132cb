import {
  DEFAULT_CATEGORY,
  DEFAULT_ITEM_ID,
  ITEM_COMMAND_PLACEHOLDERS,
  LIMIT_PERIOD_TEXT,
  LIMIT_PERIODS,
  MAX_ITEM_COMMANDS,
  OFF_SALE,
  ON_SALE,
  ShopItemCreateBody,
  type ShopItemAdmin,
} from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useFormContext, useWatch } from 'react-hook-form';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import {
  FieldGroup,
  ImageUrlField,
  MoneyField,
  NumberField,
  SelectField,
  TextAreaField,
  TextField,
} from '../../components/form/fields.tsx';
import { DateTimeField } from '../../components/form/DateTimeField.tsx';
import { ADMIN_SERVERS_KEY, CATEGORIES_KEY, fetchCategories, fetchShopServers } from './api.ts';

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
  const categories = useQuery({ queryKey: CATEGORIES_KEY, queryFn: fetchCategories });
  const form = useSchemaForm(ItemFormSchema, {
    defaultValues: {
      name: item?.name ?? '',
      price: item?.price ?? Number.NaN,
      // Empty: no limit (null), as the hint under the field says; not a number to be typed first.
      count: item ? item.count : null,
      icon: item?.icon ?? '',
      description: item?.description ?? '',
      category: item?.category ?? DEFAULT_CATEGORY,
      item_id_minecraft: item?.item_id_minecraft ?? DEFAULT_ITEM_ID,
      status: item?.status ?? ON_SALE,
      server: item ? (item.server_id === null ? '' : String(item.server_id)) : 'default',
      pieces: item?.pieces ?? 1,
      commands: item?.commands ?? [],
      sale_price: item?.sale_price ?? null,
      sale_ends_at: item?.stored_sale_ends_at ?? null,
      limit_per_player: item?.limit_per_player ?? null,
      limit_period: item?.limit_period ?? 'ever',
    },
  });
  // The owner's list, in their order; an item's category that has left the list stays selectable.
  const names = categories.data?.map((c) => c.name) ?? [];
  const current = item?.category ?? names[0] ?? DEFAULT_CATEGORY;
  const categoryOptions = (names.includes(current) ? names : [current, ...names]).map((c) => ({ value: c, label: c }));
  const status = item?.status ?? ON_SALE;
  const statuses = [ON_SALE, OFF_SALE, ...(status !== ON_SALE && status !== OFF_SALE ? [status] : [])];
  const fallback = servers.data?.servers.find((s) => s.id === servers.data?.default_server_id);
  const serverOptions = [
    ...(item
      ? []
      : [{ value: 'default', label: fallback ? `По умолчанию: ${fallback.name}` : 'По умолчанию (единственный сервер с RCON)' }]),
    { value: '', label: 'Не выбран — выдача подождёт' },
    ...(servers.data?.servers ?? []).map((s) => ({ value: String(s.id), label: `${s.name}${s.rcon ? '' : ' (RCON не настроен)'}` })),
  ];
  return (
    <Form form={form} onSubmit={(values) => onSave(toBody(values))}>
      <p className="muted">
        Поля со звёздочкой <span className="field-required">*</span> обязательны.
      </p>
      <div className="form-grid">
        <TextField name="name" label="Название" maxLength={100} autoComplete="off" required />
        <TextField
          name="item_id_minecraft"
          label="Minecraft ID"
          required
          maxLength={100}
          autoComplete="off"
          spellCheck={false}
          hint="Например, diamond_sword"
        />
        <MoneyField name="price" label="Цена, ₽" required />
        <NumberField name="count" label="Количество" empty={null} hint="Пусто — без ограничения" />
      </div>
      <ImageUrlField
        name="icon"
        label="Иконка"
        required
        placeholder="https://… или /media/…"
        hint="Картинка товара в магазине: загрузите файл или вставьте ссылку."
      />
      <TextAreaField name="description" label="Описание (необязательно)" maxLength={2000} rows={3} />
      <div className="form-grid">
        <SelectField
          key={categories.data ? 'categories' : 'loading'}
          name="category"
          label="Категория"
          options={categoryOptions}
          disabled={categories.isPending}
        />
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
      <NumberField
        name="pieces"
        label="Штук за покупку"
        hint="Сколько штук получает игрок за одну покупку, например 16 для «Алмазы ×16»."
      />
      <FieldGroup legend="Акция и лимит">
        <div className="form-grid">
          <MoneyField name="sale_price" label="Цена по акции, ₽" empty={null} hint="Пусто — без акции" />
          <DateTimeField name="sale_ends_at" label="Акция до" hint="Пусто — пока не уберёте цену по акции" />
          <NumberField name="limit_per_player" label="Лимит на игрока, покупок" empty={null} hint="Пусто — без лимита" />
          <SelectField
            name="limit_period"
            label="Период лимита"
            options={LIMIT_PERIODS.map((p) => ({ value: p, label: LIMIT_PERIOD_TEXT[p] }))}
          />
        </div>
      </FieldGroup>
      <CommandsField />
      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

/**
 * The item's own console commands, one field each (so a refusal stands next to its command);
 * none: the server's command template gives the item.
 */
function CommandsField() {
  const { control, getValues, setValue } = useFormContext<{ commands: string[] }>();
  const commands = useWatch({ control, name: 'commands' }) ?? [];
  const set = (list: string[]) => setValue('commands', list, { shouldDirty: true });
  const placeholders = ITEM_COMMAND_PLACEHOLDERS.map((p) => `{${p}}`).join(', ');
  return (
    <FieldGroup legend="Свои команды выдачи">
      <p className="muted">
        {commands.length === 0
          ? 'Команд нет: предмет выдаётся по шаблону команды сервера.'
          : 'Выполняются по порядку один раз на покупку вместо шаблона сервера.'}{' '}
        Подстановки: {placeholders}; {'{quantity}'} — покупок × штук за покупку.
      </p>
      {commands.map((_, i) => (
        <div className="item-command" key={i}>
          <TextField
            name={`commands.${i}`}
            label={`Команда ${i + 1}`}
            autoComplete="off"
            spellCheck={false}
            placeholder="give {player} minecraft:{item} {quantity}"
          />
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Удалить команду ${i + 1}`}
            onClick={() => set(getValues('commands').filter((__, j) => j !== i))}
          >
            Удалить
          </button>
        </div>
      ))}
      {commands.length < MAX_ITEM_COMMANDS && (
        <button type="button" className="btn btn-small" onClick={() => set([...getValues('commands'), ''])}>
          Добавить команду
        </button>
      )}
    </FieldGroup>
  );
}
