import { z } from 'zod';
import { withLabels } from './common.ts';

// Schemas of the shop feature, shared by the server and the web app. Money is roubles on the wire.

export const SHOP_CATEGORIES = ['Предметы', 'Оружие', 'Броня', 'Инструменты', 'Еда', 'Зелья', 'Блоки'] as const;
export type ShopCategory = (typeof SHOP_CATEGORIES)[number];
export const DEFAULT_CATEGORY: ShopCategory = 'Предметы';
export const DEFAULT_ITEM_ID = 'stone';
/** The status of an item on sale; any other status is shown as inactive and cannot be bought. */
export const ON_SALE = 'Продаётся';
export const OFF_SALE = 'Снят с продажи';
export const LOW_STOCK = 5;
/** Largest quantity in one purchase (far above any real stock; keeps totals and commands sane). */
export const MAX_QUANTITY = 10_000;

export const SHOP_TEXTS = {
  badQuantity: 'Введите корректное количество',
  noFunds: 'Недостаточно средств на балансе',
  noItem: 'Товар не найден',
  soldOut: 'Товар закончился',
  notOnSale: 'Товар снят с продажи',
  bought: 'Покупка совершена! Предмет будет выдан в игре.',
} as const;

/** Minecraft item ids: lower-case letters, digits and `_ : . - /` (namespaced ids like `mymod:gem`). */
export const ITEM_ID_RE = /^[a-z0-9_:./-]{1,100}$/;

const Kopecks2 = (v: number) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;

export const ShopPrice = z
  .number({ error: 'Цена должна быть числом' })
  .finite('Цена должна быть числом')
  .min(0, 'Цена не может быть отрицательной')
  .max(10_000_000, 'Слишком большая цена')
  .refine(Kopecks2, 'Цена: не больше двух знаков после запятой');

export const ShopCount = z
  .number({ error: 'Количество должно быть целым числом' })
  .int('Количество должно быть целым числом')
  .min(0, 'Количество не может быть отрицательным')
  .max(1_000_000_000, 'Слишком большое количество');

export const ShopItemName = z.string({ error: 'Введите название' }).trim().min(1, 'Введите название').max(100, 'Название: не длиннее 100 символов');

export const ShopIcon = z
  .string({ error: 'Укажите ссылку на иконку' })
  .trim()
  .min(1, 'Укажите ссылку на иконку')
  .max(2048, 'Слишком длинная ссылка на иконку')
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) || /^\/[^\s/][^\s]*$/.test(v), 'Иконка: укажите ссылку вида https://… или /…');

export const ShopItemIdMinecraft = z
  .string({ error: 'Укажите Minecraft ID' })
  .trim()
  .min(1, 'Укажите Minecraft ID')
  .regex(ITEM_ID_RE, 'Minecraft ID: строчные латинские буквы, цифры и символы _ : . - / (например, diamond_sword)');

export const ShopCategoryField = z.enum(SHOP_CATEGORIES, { error: `Категория: одна из ${SHOP_CATEGORIES.join(', ')}` });

export const ShopStatus = z.string({ error: 'Укажите статус' }).trim().min(1, 'Укажите статус').max(32, 'Статус: не длиннее 32 символов');

const ServerId = z
  .number({ error: 'Некорректный сервер' })
  .int('Некорректный сервер')
  .positive('Некорректный сервер')
  .max(2_147_483_647, 'Некорректный сервер')
  .nullable();

const itemFields = {
  name: ShopItemName,
  price: ShopPrice,
  count: ShopCount,
  icon: ShopIcon,
  description: z.string({ error: 'Описание должно быть строкой' }).max(2000, 'Описание: не длиннее 2000 символов'),
  category: ShopCategoryField,
  item_id_minecraft: ShopItemIdMinecraft,
  status: ShopStatus,
  /** The game server the item is delivered on; null: none chosen (deliveries wait for one). */
  server_id: ServerId,
};

/** Create: name, price, count and icon are required; the rest have defaults. */
export const ShopItemCreateBody = withLabels(
  z.strictObject({
    ...itemFields,
    description: itemFields.description.optional(),
    category: itemFields.category.optional(),
    item_id_minecraft: itemFields.item_id_minecraft.optional(),
    status: itemFields.status.optional(),
    server_id: itemFields.server_id.optional(),
  }),
  { name: 'Название', price: 'Цена', count: 'Количество', icon: 'Иконка', description: 'Описание', category: 'Категория', item_id_minecraft: 'Minecraft ID', status: 'Статус', server_id: 'Сервер доставки' },
);
export type ShopItemCreateBody = z.infer<typeof ShopItemCreateBody>;

/** Update: any subset of the fields; the others keep their values. */
export const ShopItemUpdateBody = withLabels(
  z.strictObject(itemFields).partial(),
  { name: 'Название', price: 'Цена', count: 'Количество', icon: 'Иконка', description: 'Описание', category: 'Категория', item_id_minecraft: 'Minecraft ID', status: 'Статус', server_id: 'Сервер доставки' },
);
export type ShopItemUpdateBody = z.infer<typeof ShopItemUpdateBody>;

/** What players see in the shop. */
export const ShopItem = z.object({
  id: z.number(),
  name: z.string(),
  icon: z.string(),
  price: z.number(),
  count: z.number(),
  description: z.string(),
  category: z.string(),
});
export type ShopItem = z.infer<typeof ShopItem>;

export const ShopItemAdmin = ShopItem.extend({
  item_id_minecraft: z.string(),
  status: z.string(),
  server_id: z.number().nullable(),
  server_name: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type ShopItemAdmin = z.infer<typeof ShopItemAdmin>;

export const BuyBody = withLabels(
  z.strictObject({
    shop_id: z.number({ error: SHOP_TEXTS.noItem }).int(SHOP_TEXTS.noItem).positive(SHOP_TEXTS.noItem).max(2_147_483_647, SHOP_TEXTS.noItem),
    quantity: z.number({ error: SHOP_TEXTS.badQuantity }).int(SHOP_TEXTS.badQuantity).min(1, SHOP_TEXTS.badQuantity).max(MAX_QUANTITY, SHOP_TEXTS.badQuantity),
  }, { error: 'Некорректный запрос: ожидаются только поля shop_id и quantity' }),
  { shop_id: 'Товар', quantity: 'Количество' },
);
export type BuyBody = z.infer<typeof BuyBody>;

export const BuyResponse = z.object({
  new_balance: z.number(),
  message: z.string(),
  order_id: z.number(),
});
export type BuyResponse = z.infer<typeof BuyResponse>;

/** Header that makes a retried purchase return the first answer instead of buying twice. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IdempotencyKey = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{8,100}$/, 'Заголовок Idempotency-Key: от 8 до 100 символов — латинские буквы, цифры и _ . : -');

/**
 * pending: waits to be sent (or for the server / the player to be reachable); sent: the command
 * is out, no answer yet; done: the server answered; failed: the server refused it; unknown: the
 * answer never came (it may have run, so it is not resent automatically); refunded: money returned.
 */
export const DELIVERY_STATES = ['pending', 'sent', 'done', 'failed', 'unknown', 'refunded'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const DELIVERY_STATE_TEXT: Record<DeliveryState, string> = {
  pending: 'Ожидает выдачи',
  sent: 'Выдаётся',
  done: 'Выдано',
  failed: 'Ошибка выдачи',
  unknown: 'Не подтверждено',
  refunded: 'Деньги возвращены',
};

export const OrderDelivery = z.object({
  id: z.number(),
  quantity: z.number(),
  state: z.enum(DELIVERY_STATES),
  updated_at: z.number(),
});

export const ShopOrder = z.object({
  id: z.number(),
  item_id: z.number(),
  item_name: z.string(),
  icon: z.string(),
  quantity: z.number(),
  price: z.number(),
  total: z.number(),
  created_at: z.number(),
  deliveries: z.array(OrderDelivery),
});
export type ShopOrder = z.infer<typeof ShopOrder>;

export const AdminDelivery = z.object({
  id: z.number(),
  order_id: z.number(),
  user_id: z.number(),
  username: z.string(),
  item_name: z.string(),
  item_id_minecraft: z.string(),
  quantity: z.number(),
  /** Roubles this delivery is worth (what a refund returns). */
  amount: z.number(),
  server_id: z.number().nullable(),
  server_name: z.string().nullable(),
  state: z.enum(DELIVERY_STATES),
  attempts: z.number(),
  command: z.string().nullable(),
  reply: z.string().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type AdminDelivery = z.infer<typeof AdminDelivery>;

export const DeliveriesQuery = withLabels(
  z.strictObject({
    state: z.enum(DELIVERY_STATES, { error: 'Некорректное состояние доставки' }).optional(),
    limit: z.coerce.number({ error: 'Некорректный лимит' }).int('Некорректный лимит').min(1, 'Некорректный лимит').max(500, 'Некорректный лимит').optional(),
  }),
  { state: 'Состояние', limit: 'Лимит' },
);

export const DeliveryActionResponse = z.object({ message: z.string(), delivery: AdminDelivery, new_balance: z.number().optional() });
export type DeliveryActionResponse = z.infer<typeof DeliveryActionResponse>;

/** Game servers for the item form's select; `rcon` says whether delivery is configured. */
export const ShopServerOption = z.object({ id: z.number(), name: z.string(), rcon: z.boolean() });
export type ShopServerOption = z.infer<typeof ShopServerOption>;
export const ShopServersResponse = z.object({ servers: z.array(ShopServerOption), default_server_id: z.number().nullable() });
export type ShopServersResponse = z.infer<typeof ShopServersResponse>;
