import { z } from 'zod';
import { commandProblem, forbiddenProblem, ITEM_COMMAND_PLACEHOLDERS } from './commands.ts';
import { withLabels } from './common.ts';

// Schemas of the servers feature, shared by the server and the web app.

export const SERVER_DEFAULTS = { port: 25565, max_online: 100 } as const;
export const DEFAULT_RCON_PORT = 25575;
export const DEFAULT_COMMAND_TEMPLATE = 'give {player} minecraft:{item} {quantity}';
/** Placeholders of the server's command template (the same as an item's own commands). */
export const COMMAND_PLACEHOLDERS = ITEM_COMMAND_PLACEHOLDERS;
/** The history chart: the last 24 hours in half-hour buckets. */
export const HISTORY_BUCKETS = 48;
export const HISTORY_STEP_MS = 30 * 60_000;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** A host name (Cyrillic domains included), an IPv4 or an IPv6 address; no port, no scheme. */
export function isHostOrIp(value: string): boolean {
  if (IPV4.test(value)) return true;
  if (value.includes(':')) return z.ipv6().safeParse(value.replace(/^\[(.*)\]$/, '$1')).success;
  // 300.1.1.1 is a broken IP address, not a host name.
  if (/^[\d.]+$/.test(value)) return false;
  const name = value.replace(/\.$/, '');
  return name.length > 0 && name.length <= 253 && name.split('.').every((l) => LABEL.test(l));
}

/** http(s)://… or a path on this site (/uploads/…); empty means no image. */
export function isImageUrl(value: string): boolean {
  if (value === '') return true;
  // eslint-disable-next-line no-control-regex -- an address never holds control characters
  if (/[\u0000-\u001f\u007f]/.test(value)) return false;
  if (/^\/(?!\/)\S*$/.test(value)) return true;
  const m = /^https?:\/\/([^\s/?#@]+)(?:[/?#]\S*)?$/i.exec(value);
  if (!m) return false;
  const host = m[1]!.replace(/:\d{1,5}$/, '');
  return isHostOrIp(host);
}

/** Why a command template is refused (the same rules as when a command is sent), or null when it is fine. */
export function commandTemplateProblem(value: string): string | null {
  return commandProblem(value, { placeholders: COMMAND_PLACEHOLDERS, needsPlayer: true, label: 'Шаблон команды' });
}

/** Numbers as numbers; a numeric string from a form is taken too, anything else is refused. */
const intField = (min: number, max: number, message: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d{1,10}\s*$/.test(v) ? Number(v) : v),
    z.number({ error: message }).int(message).min(min, message).max(max, message),
  );

const PORT_TEXT = 'Порт — целое число от 1 до 65535';
const RCON_PORT_TEXT = 'Порт RCON — целое число от 1 до 65535';
const MAX_ONLINE_TEXT = 'Максимальный онлайн — целое число от 1';
const HOST_TEXT = 'Адрес сервера: доменное имя или IP-адрес, без порта';
const RCON_HOST_TEXT = 'Адрес RCON: доменное имя или IP-адрес, без порта';
const IMAGE_TEXT = 'Ссылка на изображение: адрес http(s)://… или путь на сайте, начинающийся с /';

// eslint-disable-next-line no-control-regex -- PostgreSQL refuses NUL in text; other controls are never meant
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const Name = z
  .string({ error: 'Введите название сервера' })
  .trim()
  .min(1, 'Введите название сервера')
  .max(100, 'Название сервера: не длиннее 100 символов')
  .refine((v) => !CONTROLS.test(v) && !/[\r\n\t]/.test(v), 'Название сервера: одна строка без управляющих символов');
const Description = z
  .string({ error: 'Введите описание сервера' })
  .trim()
  .min(1, 'Введите описание сервера')
  .max(2000, 'Описание сервера: не длиннее 2000 символов')
  .refine((v) => !CONTROLS.test(v), 'Описание сервера: без управляющих символов');
const ImageUrl = z.string({ error: IMAGE_TEXT }).trim().max(2048, 'Ссылка на изображение слишком длинная').refine(isImageUrl, IMAGE_TEXT);
const Host = (text: string) =>
  z
    .string({ error: text })
    .trim()
    .max(253, text)
    .refine((v) => v === '' || isHostOrIp(v), text);
const Port = intField(1, 65535, PORT_TEXT);
const MaxOnline = intField(1, 1_000_000, MAX_ONLINE_TEXT);
/** Empty or null: use the server's own address. */
const RconHost = z.union([z.null(), Host(RCON_HOST_TEXT)], { error: RCON_HOST_TEXT }).transform((v) => v || null);
const RconPort = z
  .union([z.null(), z.literal(''), intField(1, 65535, RCON_PORT_TEXT)], { error: RCON_PORT_TEXT })
  .transform((v) => (v === '' ? null : v));
/** Write-only. On update '' keeps the stored password and null removes it. */
const RconPassword = z.union(
  [
    z.null(),
    z
      .string()
      .max(255, 'Пароль RCON: не длиннее 255 символов')
      // eslint-disable-next-line no-control-regex -- RCON sends it as one line
      .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'Пароль RCON: без управляющих символов'),
  ],
  { error: 'Пароль RCON должен быть строкой' },
);
/**
 * Empty or null: the default template. Checked before trimming, so that a newline or U+2028 at
 * either end is refused with the rest rather than silently cut off.
 */
const CommandTemplate = z
  .union([z.null(), z.string()], { error: 'Шаблон команды должен быть строкой' })
  .superRefine((v, ctx) => {
    const problem = v === null || v.trim() === '' ? forbiddenProblem(v ?? '', 'Шаблон команды') : commandTemplateProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((v) => v?.trim() || null);

export const ServerBody = withLabels(
  z.strictObject({
    name: Name,
    description: Description,
    image_url: ImageUrl.default(''),
    ip_address: Host(HOST_TEXT).default(''),
    port: Port.default(SERVER_DEFAULTS.port),
    max_online: MaxOnline.default(SERVER_DEFAULTS.max_online),
    rcon_host: RconHost.optional(),
    rcon_port: RconPort.optional(),
    rcon_password: RconPassword.optional(),
    command_template: CommandTemplate.optional(),
  }),
  {
    name: 'Название',
    description: 'Описание',
    image_url: 'Картинка',
    ip_address: 'Адрес',
    port: 'Порт',
    max_online: 'Максимум игроков',
    rcon_host: 'Адрес RCON',
    rcon_port: 'Порт RCON',
    rcon_password: 'Пароль RCON',
    command_template: 'Шаблон команды',
  },
);
export type ServerBodyInput = z.input<typeof ServerBody>;
export type ServerBody = z.output<typeof ServerBody>;

/** The same fields; what is left out keeps its stored value (an older client sends only six). */
export const ServerUpdateBody = withLabels(
  z.strictObject({
    name: Name,
    description: Description,
    image_url: ImageUrl.optional(),
    ip_address: Host(HOST_TEXT).optional(),
    port: Port.optional(),
    max_online: MaxOnline.optional(),
    rcon_host: RconHost.optional(),
    rcon_port: RconPort.optional(),
    rcon_password: RconPassword.optional(),
    command_template: CommandTemplate.optional(),
  }),
  {
    name: 'Название',
    description: 'Описание',
    image_url: 'Картинка',
    ip_address: 'Адрес',
    port: 'Порт',
    max_online: 'Максимум игроков',
    rcon_host: 'Адрес RCON',
    rcon_port: 'Порт RCON',
    rcon_password: 'Пароль RCON',
    command_template: 'Шаблон команды',
  },
);
export type ServerUpdateBody = z.output<typeof ServerUpdateBody>;

export const ServerHistory = z.object({
  /** Start of the first bucket, epoch ms. */
  start: z.number(),
  step_ms: z.number(),
  /** Peak players online per bucket; null where no check succeeded. */
  points: z.array(z.number().nullable()),
});
export type ServerHistory = z.infer<typeof ServerHistory>;

const serverFields = {
  id: z.number(),
  name: z.string(),
  description: z.string(),
  image_url: z.string(),
  ip_address: z.string(),
  port: z.number(),
  max_online: z.number(),
  maxOnline: z.number(),
  online: z.number(),
  current_online: z.number(),
  /** 'online', or 'offline' after two failed checks in a row (or before the first check). */
  status: z.enum(['online', 'offline']),
  version: z.string().nullable(),
  motd: z.string().nullable(),
  last_checked_at: z.number().nullable(),
  /** The server's own icon from its status reply, when it sends one. */
  favicon_url: z.string().nullable(),
  /** Some of the players online, as the server's status reply lists them (at most 12; vanilla picks them at random), without those who hid their profile. */
  players: z.array(z.string()),
};

export const PublicServer = z.object({ ...serverFields, history: ServerHistory });
export type PublicServer = z.infer<typeof PublicServer>;

export const ServersListResponse = z.object({ servers: z.array(PublicServer), total_online: z.number() });
export type ServersListResponse = z.infer<typeof ServersListResponse>;

export const DELIVERY_CHANNELS = ['rcon', 'plugin'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/** AzLink's listener for instant commands, unless its owner moved it (`/azlink port`). */
export const AZLINK_DEFAULT_PING_PORT = 25588;
/** A linked server whose plugin reported within this long counts as online. */
export const AZLINK_ONLINE_MS = 2 * 60_000;

/** The AzLink plugin's link, as the admin's server card shows it. */
export const ServerLink = z.object({
  linked: z.boolean(),
  linked_at: z.number().nullable(),
  /** The plugin's last call of any kind. */
  last_call_at: z.number().nullable(),
  /** It reported the players within the last two minutes. */
  online: z.boolean(),
  /** BUKKIT, BUNGEE, VELOCITY, SPONGE, NUKKIT… as the plugin names it, with the platform's own name and version. */
  platform: z.string().nullable(),
  platform_name: z.string().nullable(),
  platform_version: z.string().nullable(),
  plugin_version: z.string().nullable(),
  /** Every player online at the plugin's last report. */
  players: z.array(z.string()),
  tps: z.number().nullable(),
  ram_mb: z.number().nullable(),
  cpu_percent: z.number().nullable(),
  /** After a purchase the site asks the plugin to fetch at once. */
  instant_ping: z.boolean(),
  ping_port: z.number(),
  /** In-game registrations and password or address changes make or update site accounts (the owner's switch, off by default). */
  game_accounts: z.boolean(),
});
export type ServerLink = z.infer<typeof ServerLink>;

export const AdminServer = z.object({
  ...serverFields,
  fail_count: z.number(),
  last_error: z.string().nullable(),
  rcon_host: z.string().nullable(),
  rcon_port: z.number().nullable(),
  command_template: z.string(),
  has_rcon_password: z.boolean(),
  /**
   * When the stored password was dropped because the RCON address changed (it is never sent to an
   * address it was not typed for); null when it was not, or was typed again since.
   */
  rcon_password_dropped_at: z.number().nullable(),
  /** A password is set and there is an address to send to: the shop can deliver here. */
  rcon_configured: z.boolean(),
  /** Which way deliveries go: RCON, or the AzLink plugin (only while it is linked). */
  delivery_channel: z.enum(DELIVERY_CHANNELS),
  link: ServerLink,
});
export type AdminServer = z.infer<typeof AdminServer>;

export const ServerLinkResponse = z.object({
  message: z.string(),
  /** Shown once: the site keeps only its hash. */
  token: z.string(),
  /** What the owner pastes into the game server's console. */
  command: z.string(),
  server: AdminServer,
});
export type ServerLinkResponse = z.infer<typeof ServerLinkResponse>;

export const ServerLinkSettingsBody = withLabels(
  z.strictObject({
    delivery_channel: z.enum(DELIVERY_CHANNELS, { error: 'Способ выдачи: rcon или plugin' }).optional(),
    instant_ping: z.boolean({ error: 'Мгновенная выдача: да или нет' }).optional(),
    ping_port: z
      .number({ error: 'Порт: целое число от 1 до 65535' })
      .int('Порт: целое число от 1 до 65535')
      .min(1, 'Порт: целое число от 1 до 65535')
      .max(65535, 'Порт: целое число от 1 до 65535')
      .nullable()
      .optional(),
  }),
  { delivery_channel: 'Способ выдачи', instant_ping: 'Мгновенная выдача', ping_port: 'Порт плагина' },
);
export type ServerLinkSettingsBody = z.output<typeof ServerLinkSettingsBody>;

export const ServerLinkAccountsBody = z.strictObject({ enabled: z.boolean({ error: 'Аккаунты из игры: да или нет' }) });
export type ServerLinkAccountsBody = z.output<typeof ServerLinkAccountsBody>;

export const AdminServersListResponse = z.object({ servers: z.array(AdminServer) });
export type AdminServersListResponse = z.infer<typeof AdminServersListResponse>;

export const ServerSaveResponse = z.object({ message: z.string(), server: AdminServer });
export type ServerSaveResponse = z.infer<typeof ServerSaveResponse>;

export const MonitorResponse = z.object({ message: z.string(), checked: z.number(), online: z.number(), offline: z.number() });
export type MonitorResponse = z.infer<typeof MonitorResponse>;

export const HistoryQuery = withLabels(
  z.strictObject({
    hours: intField(1, 24 * 30, 'Период: от 1 до 720 часов').default(24),
  }),
  { hours: 'Период (часов)' },
);

export const ServerHistoryResponse = z.object({
  id: z.number(),
  from: z.number(),
  to: z.number(),
  points: z.array(z.object({ at: z.number(), online: z.number().nullable() })),
});
export type ServerHistoryResponse = z.infer<typeof ServerHistoryResponse>;

/**
 * «Проверить RCON» from the server form: the form's RCON settings, or, for a saved server
 * (server_id), the stored ones for whatever the form leaves out (an empty password keeps the
 * stored one, as saving does — but only for the stored RCON address: another address needs the
 * password typed).
 */
export const RconCheckBody = withLabels(
  z.strictObject({
    server_id: z
      .number({ error: 'Некорректный сервер' })
      .int('Некорректный сервер')
      .positive('Некорректный сервер')
      .max(2_147_483_647, 'Некорректный сервер')
      .optional(),
    ip_address: Host(HOST_TEXT).optional(),
    rcon_host: RconHost.optional(),
    rcon_port: RconPort.optional(),
    rcon_password: RconPassword.optional(),
  }),
  { server_id: 'Сервер', ip_address: 'Адрес', rcon_host: 'Адрес RCON', rcon_port: 'Порт RCON', rcon_password: 'Пароль RCON' },
);
export type RconCheckBody = z.output<typeof RconCheckBody>;

export const RconCheckResponse = z.object({
  /** The server logged us in and answered `list`. */
  ok: z.boolean(),
  /** «RCON работает…» or the exact reason it does not (refused, wrong password, no answer in N ms, address not found). */
  message: z.string(),
  /** The server's answer to `list`. */
  reply: z.string().nullable(),
  /** Where the check went, host:port. */
  address: z.string(),
  elapsed_ms: z.number(),
});
export type RconCheckResponse = z.infer<typeof RconCheckResponse>;
