import { z } from 'zod';
import { commandProblem, ITEM_COMMAND_PLACEHOLDERS } from './commands.ts';
import { DELIVERY_STATES, DELIVERY_WAITING, DeliveryStatus } from './deliveries.ts';
import { roundsToZeroKopecks, withLabels, ZERO_KOPECKS_TEXT } from './common.ts';

// Schemas of the shop feature, shared by the server and the web app. Money is roubles on the wire.

/** The spec's categories: the list an owner starts with (they are the owner's to rename, add and remove). */
export const SHOP_CATEGORIES = ['Предметы', 'Оружие', 'Броня', 'Инструменты', 'Еда', 'Зелья', 'Блоки'] as const;
export const DEFAULT_CATEGORY = 'Предметы';
export const DEFAULT_ITEM_ID = 'stone';
/** The status of an item on sale; any other status is shown as inactive and cannot be bought. */
export const ON_SALE = 'Продаётся';
export const OFF_SALE = 'Снят с продажи';
export const LOW_STOCK = 5;
/** Largest quantity in one purchase (far above any real stock; keeps totals and commands sane). */
export const MAX_QUANTITY = 10_000;
/** Pieces per purchase («Алмазы ×16»): at most what one `give` accepts (100 stacks of 64). */
export const MAX_PIECES = 6400;
/** An item's own console commands: at most this many per purchase. */
export const MAX_ITEM_COMMANDS = 20;

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
  .refine((v) => !roundsToZeroKopecks(v), ZERO_KOPECKS_TEXT)
  .refine(Kopecks2, 'Цена: не больше двух знаков после запятой');

export const ShopCount = z
  .number({ error: 'Количество должно быть целым числом' })
  .int('Количество должно быть целым числом')
  .min(0, 'Количество не может быть отрицательным')
  .max(1_000_000_000, 'Слишком большое количество');

export const ShopItemName = z
  .string({ error: 'Введите название' })
  .trim()
  .min(1, 'Введите название')
  .max(100, 'Название: не длиннее 100 символов');

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

// eslint-disable-next-line no-control-regex -- a category is one line of plain text
const LINE_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A category's name; whether it exists is checked against the owner's list when an item is saved. */
export const ShopCategoryName = z
  .string({ error: 'Укажите категорию' })
  .trim()
  .min(1, 'Укажите категорию')
  .max(32, 'Категория: не длиннее 32 символов')
  .refine((v) => !LINE_CONTROLS.test(v), 'Категория: одна строка без управляющих символов');
export const ShopCategoryField = ShopCategoryName;

/** Pieces of the item one purchase gives. */
export const ShopPieces = z
  .number({ error: 'Штук за покупку: целое число от 1 до 6400' })
  .int('Штук за покупку: целое число от 1 до 6400')
  .min(1, 'Штук за покупку: целое число от 1 до 6400')
  .max(MAX_PIECES, 'Штук за покупку: целое число от 1 до 6400');

/**
 * The item's own console commands, run once per purchase instead of the server's template; an
 * empty list keeps the template. Each is refused here for anything the sender would refuse later.
 */
export const ShopItemCommands = z
  .array(z.string({ error: 'Команда должна быть строкой' }), { error: 'Команды: список строк' })
  .max(MAX_ITEM_COMMANDS, `Команды: не больше ${MAX_ITEM_COMMANDS}`)
  .superRefine((list, ctx) => {
    list.forEach((command, i) => {
      const problem = commandProblem(command, { placeholders: ITEM_COMMAND_PLACEHOLDERS, needsPlayer: true, label: `Команда ${i + 1}` });
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [i] });
    });
  })
  .transform((list) => list.map((c) => c.trim()));

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
  pieces: ShopPieces,
  commands: ShopItemCommands,
};

const ITEM_LABELS = {
  name: 'Название',
  price: 'Цена',
  count: 'Количество',
  icon: 'Иконка',
  description: 'Описание',
  category: 'Категория',
  item_id_minecraft: 'Minecraft ID',
  status: 'Статус',
  server_id: 'Сервер доставки',
  pieces: 'Штук за покупку',
  commands: 'Свои команды',
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
    pieces: itemFields.pieces.optional(),
    commands: itemFields.commands.optional(),
  }),
  ITEM_LABELS,
);
export type ShopItemCreateBody = z.infer<typeof ShopItemCreateBody>;

/** Update: any subset of the fields; the others keep their values. */
export const ShopItemUpdateBody = withLabels(z.strictObject(itemFields).partial(), ITEM_LABELS);
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
  /** Pieces one purchase gives («×16»). */
  pieces: z.number(),
});
export type ShopItem = z.infer<typeof ShopItem>;

export const ShopItemAdmin = ShopItem.extend({
  item_id_minecraft: z.string(),
  status: z.string(),
  server_id: z.number().nullable(),
  server_name: z.string().nullable(),
  /** Own console commands; empty: the server's command template. */
  commands: z.array(z.string()),
  created_at: z.number(),
  updated_at: z.number(),
});
export type ShopItemAdmin = z.infer<typeof ShopItemAdmin>;

export const BuyBody = withLabels(
  z.strictObject(
    {
      shop_id: z
        .number({ error: SHOP_TEXTS.noItem })
        .int(SHOP_TEXTS.noItem)
        .positive(SHOP_TEXTS.noItem)
        .max(2_147_483_647, SHOP_TEXTS.noItem),
      quantity: z
        .number({ error: SHOP_TEXTS.badQuantity })
        .int(SHOP_TEXTS.badQuantity)
        .min(1, SHOP_TEXTS.badQuantity)
        .max(MAX_QUANTITY, SHOP_TEXTS.badQuantity),
    },
    { error: 'Некорректный запрос: ожидаются только поля shop_id и quantity' },
  ),
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

export const OrderDelivery = z.object({
  id: z.number(),
  /** Purchases this delivery carries (pieces given: quantity × the item's pieces). */
  quantity: z.number(),
  state: z.enum(DELIVERY_STATES),
  server_name: z.string().nullable(),
  waiting: z.enum(DELIVERY_WAITING).nullable(),
  /** Why it waits, for the player: «Зайдите на сервер «Выживание», чтобы получить покупку». */
  waiting_text: z.string().nullable(),
  updated_at: z.number(),
});

export const ShopOrder = z.object({
  id: z.number(),
  item_id: z.number(),
  item_name: z.string(),
  icon: z.string(),
  quantity: z.number(),
  /** Pieces per purchase at the time of the order. */
  pieces: z.number(),
  price: z.number(),
  total: z.number(),
  created_at: z.number(),
  deliveries: z.array(OrderDelivery),
  /** All its deliveries in one word (the card's headline); null: nothing to deliver. */
  delivery: DeliveryStatus.nullable(),
});
export type ShopOrder = z.infer<typeof ShopOrder>;

/** Game servers for the item form's select; `rcon` says whether delivery is configured. */
export const ShopServerOption = z.object({ id: z.number(), name: z.string(), rcon: z.boolean() });
export type ShopServerOption = z.infer<typeof ShopServerOption>;
export const ShopServersResponse = z.object({ servers: z.array(ShopServerOption), default_server_id: z.number().nullable() });
export type ShopServersResponse = z.infer<typeof ShopServersResponse>;

export const ShopCategory = z.object({ id: z.number(), name: z.string(), position: z.number(), items: z.number() });
export type ShopCategory = z.infer<typeof ShopCategory>;
export const ShopCategoriesResponse = z.object({ categories: z.array(ShopCategory) });
export type ShopCategoriesResponse = z.infer<typeof ShopCategoriesResponse>;
export const ShopCategoryBody = withLabels(
  z.strictObject({
    name: ShopCategoryName,
    position: z
      .number({ error: 'Порядок: целое число' })
      .int('Порядок: целое число')
      .min(0, 'Порядок: целое число')
      .max(1_000_000, 'Порядок: целое число')
      .optional(),
  }),
  { name: 'Название', position: 'Порядок' },
);
export type ShopCategoryBody = z.infer<typeof ShopCategoryBody>;
export const ShopCategorySaveResponse = z.object({ message: z.string(), category: ShopCategory });
export type ShopCategorySaveResponse = z.infer<typeof ShopCategorySaveResponse>;
