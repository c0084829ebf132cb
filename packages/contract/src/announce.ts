import { z } from 'zod';
import { withLabels } from './common.ts';

// Announcements of the site's events in Discord, Telegram and VK (Админ-панель → Объявления).

export const ANNOUNCE_EVENTS = ['news', 'purchase', 'ticket', 'server_down', 'server_up'] as const;
export type AnnounceEvent = (typeof ANNOUNCE_EVENTS)[number];
export const ANNOUNCE_CHANNELS = ['discord', 'telegram', 'vk'] as const;
export type AnnounceChannel = (typeof ANNOUNCE_CHANNELS)[number];

export const ANNOUNCE_EVENT_TEXT: Record<AnnounceEvent, string> = {
  news: 'Новая новость',
  purchase: 'Покупка',
  ticket: 'Новое обращение в поддержку (для персонала)',
  server_down: 'Сервер недоступен',
  server_up: 'Сервер снова работает',
};

/** Placeholders each event's template may use. */
export const ANNOUNCE_PLACEHOLDERS: Record<AnnounceEvent, readonly string[]> = {
  news: ['title', 'text', 'url', 'site'],
  purchase: ['player', 'item', 'amount', 'site'],
  ticket: ['id', 'subject', 'player', 'category', 'url', 'site'],
  server_down: ['server', 'site'],
  server_up: ['server', 'online', 'site'],
};

export const ANNOUNCE_DEFAULT_TEMPLATES: Record<AnnounceEvent, string> = {
  news: '📰 {title}\n{text}\n{url}',
  purchase: '🛒 {player} купил(а) «{item}»{amount}',
  ticket: '🆘 Обращение №{id} от {player}: {subject}\n{url}',
  server_down: '🔴 Сервер {server} недоступен',
  server_up: '🟢 Сервер {server} снова работает',
};

export const ANNOUNCE_TEMPLATE_MAX = 1000;

const template = z
  .string({ error: 'Шаблон: ожидалась строка' })
  .max(ANNOUNCE_TEMPLATE_MAX, `Шаблон: не длиннее ${ANNOUNCE_TEMPLATE_MAX} символов`);

const secret = (label: string, shape: RegExp, shapeText: string) =>
  z
    .string({ error: `${label}: ожидалась строка` })
    .trim()
    .regex(shape, shapeText)
    .nullable()
    .optional();

/**
 * The owner's settings: where and what is announced. The webhook address and the bot tokens are
 * secrets: the owner's alone, written and never shown back; `null` removes one, a field left out
 * keeps it. A Discord webhook address is https on DISCORD_URL's host (discord.com).
 */
export const AnnounceSettingsBody = withLabels(
  z.strictObject({
    discord_webhook_url: secret(
      'Адрес вебхука Discord',
      /^https?:\/\/[^\s]{1,490}$/,
      'Адрес вебхука Discord: https://discord.com/api/webhooks/<номер>/<ключ>',
    ),
    telegram_bot_token: secret(
      'Токен бота Telegram',
      /^\d{3,20}:[A-Za-z0-9_-]{20,100}$/,
      'Токен бота Telegram: вида 123456789:AA… (его выдаёт @BotFather)',
    ),
    telegram_chat_id: z
      .string({ error: 'Чат Telegram: ожидалась строка' })
      .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})?$/, 'Чат Telegram: номер чата (-100…) или @имя_канала')
      .optional(),
    vk_token: secret('Ключ доступа VK', /^[A-Za-z0-9._-]{20,400}$/, 'Ключ доступа VK: ключ сообщества из «Управление → Работа с API»'),
    vk_group_id: z
      .string({ error: 'Сообщество VK: ожидалось число' })
      .regex(/^\d{0,12}$/, 'Сообщество VK: номер сообщества (только цифры)')
      .optional(),
    /** 'wall': a post on the community's wall; 'messages': a message from the community to vk_peer_id. */
    vk_mode: z.enum(['wall', 'messages'], { error: 'VK: стена или сообщения' }).optional(),
    vk_peer_id: z
      .string({ error: 'Получатель VK: ожидалось число' })
      .regex(/^\d{0,12}$/, 'Получатель VK: номер беседы или пользователя (только цифры)')
      .optional(),
    events: z
      .array(z.enum(ANNOUNCE_EVENTS, { error: 'Событие: выберите из списка' }))
      .max(ANNOUNCE_EVENTS.length)
      .optional(),
    /** Purchases: show the amount paid, or only what was bought. */
    purchase_amount: z.enum(['shown', 'hidden'], { error: 'Сумма покупки: показывать или скрывать' }).optional(),
    templates: z.partialRecord(z.enum(ANNOUNCE_EVENTS), template).optional(),
  }),
  {
    discord_webhook_url: 'Адрес вебхука Discord',
    telegram_bot_token: 'Токен бота Telegram',
    telegram_chat_id: 'Чат Telegram',
    vk_token: 'Ключ доступа VK',
    vk_group_id: 'Сообщество VK',
    vk_mode: 'Куда писать в VK',
    vk_peer_id: 'Получатель VK',
    events: 'События',
    purchase_amount: 'Сумма покупки',
    templates: 'Шаблоны',
  },
);
export type AnnounceSettingsBody = z.infer<typeof AnnounceSettingsBody>;

export const AnnounceSettingsView = z.object({
  discord: z.object({ set: z.boolean(), display: z.string().nullable() }),
  telegram: z.object({ set: z.boolean(), chat_id: z.string() }),
  vk: z.object({ set: z.boolean(), group_id: z.string(), mode: z.enum(['wall', 'messages']), peer_id: z.string() }),
  events: z.array(z.enum(ANNOUNCE_EVENTS)),
  purchase_amount: z.enum(['shown', 'hidden']),
  templates: z.record(z.enum(ANNOUNCE_EVENTS), z.string()),
  /** The latest messages and how they went. */
  recent: z.array(
    z.object({
      id: z.number(),
      channel: z.enum(ANNOUNCE_CHANNELS),
      event: z.string(),
      text: z.string(),
      state: z.enum(['queued', 'sent', 'failed']),
      attempts: z.number(),
      last_error: z.string().nullable(),
      created_at: z.number(),
      sent_at: z.number().nullable(),
    }),
  ),
});
export type AnnounceSettingsView = z.infer<typeof AnnounceSettingsView>;

export const AnnounceTestBody = withLabels(
  z.strictObject({
    channel: z.enum(ANNOUNCE_CHANNELS, { error: 'Канал: discord, telegram или vk' }),
    event: z.enum(ANNOUNCE_EVENTS, { error: 'Событие: выберите из списка' }).default('news'),
  }),
  { channel: 'Канал', event: 'Событие' },
);
export type AnnounceTestBody = z.infer<typeof AnnounceTestBody>;

export const AnnounceTestResult = z.object({ ok: z.boolean(), message: z.string() });
export type AnnounceTestResult = z.infer<typeof AnnounceTestResult>;
