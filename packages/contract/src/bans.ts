import { z } from 'zod';
import { commandProblem, forbiddenCharacter } from './commands.ts';
import { withLabels } from './common.ts';

// Schemas of bans, shared by the server and the web app.

/** The reason the player and everyone else see (optional). */
export const BAN_REASON_MAX = 200;
/** The staff's internal note (the why, with what only staff may read). */
export const BAN_NOTE_MAX = 500;
/** Placeholders of a server's ban and unban commands. */
export const BAN_COMMAND_PLACEHOLDERS = ['player', 'uuid', 'reason', 'until', 'duration'] as const;
/** The furthest end a ban may be given (year 9999); beyond that, ban forever. */
export const BAN_UNTIL_MAX = 253_402_300_799_000;

/**
 * A ban in force, as the public profile, the player (refused logins, the notice) and the admin's
 * list see it. `reason` is the public reason ('' when the admin gave none), never the staff's note.
 */
export const BanInfo = z.object({
  reason: z.string(),
  /** Epoch ms; null: forever. */
  until: z.number().nullable(),
  /** Epoch ms. */
  since: z.number(),
  /** «Аккаунт заблокирован до 01.12.2026, 14:05 (МСК): причина» (without «: причина» when there is none) */
  text: z.string(),
});
export type BanInfo = z.infer<typeof BanInfo>;

/** A ban as staff with the `bans` permission see it: with the internal note. */
export const StaffBanInfo = BanInfo.extend({ note: z.string() });
export type StaffBanInfo = z.infer<typeof StaffBanInfo>;

const banText = (label: string, max: number, required?: string) => {
  let text = z.string({ error: `${label}: ожидалась строка` }).trim();
  if (required) text = text.min(1, required);
  return text
    .max(max, `${label}: не длиннее ${max} символов`)
    .refine((s) => !forbiddenCharacter(s), `${label}: без переводов строки, управляющих и невидимых символов`);
};

export const BanBody = withLabels(
  z.strictObject({
    /** What the player and everyone else see: at login, in the notice, in the public profile and in game ({reason}). Optional. */
    reason: banText('Причина для игрока', BAN_REASON_MAX).optional(),
    /** What staff alone see: the history, the audit log. Required: every ban keeps its why. */
    note: banText('Внутренняя заметка', BAN_NOTE_MAX, 'Укажите внутреннюю заметку: за что блокировка (её видит только персонал)'),
    /** Epoch ms of the end; null: forever. */
    until: z
      .number({ error: 'Срок: ожидалась дата окончания (мс) или null — навсегда' })
      .int('Срок: ожидалась дата окончания (мс)')
      .min(0, 'Срок: дата окончания должна быть в будущем')
      .max(BAN_UNTIL_MAX, 'Срок: слишком далёкая дата — выберите «навсегда»')
      .nullable(),
  }),
  { reason: 'Причина для игрока', note: 'Внутренняя заметка', until: 'До' },
);
export type BanBody = z.infer<typeof BanBody>;

export const BanResponse = z.object({ message: z.string(), ban: StaffBanInfo });
export type BanResponse = z.infer<typeof BanResponse>;

/** One ban of the history (Админ-панель → Баны). */
export const BanRecord = z.object({
  id: z.number(),
  user_id: z.number(),
  username: z.string(),
  /** The public reason ('' when none). */
  reason: z.string(),
  /** The internal note, for staff only. */
  note: z.string(),
  until: z.number().nullable(),
  created_at: z.number(),
  created_by: z.string().nullable(),
  lifted_at: z.number().nullable(),
  lifted_by: z.string().nullable(),
  /** admin | expired | deleted; null while in force */
  lift_reason: z.string().nullable(),
  active: z.boolean(),
});
export type BanRecord = z.infer<typeof BanRecord>;

export const BanListQuery = withLabels(
  z.strictObject({
    active: z.enum(['0', '1'], { error: 'active: 0 или 1' }).optional(),
    user_id: z.coerce
      .number({ error: 'Некорректный идентификатор' })
      .int('Некорректный идентификатор')
      .positive('Некорректный идентификатор')
      .max(2_147_483_647, 'Некорректный идентификатор')
      .optional(),
  }),
  { active: 'Только действующие', user_id: 'Игрок' },
);
export type BanListQuery = z.infer<typeof BanListQuery>;

const banCommand = (label: string) =>
  z
    .string({ error: `${label}: ожидалась строка` })
    .trim()
    .nullable()
    .transform((s) => (s === '' ? null : s))
    .superRefine((s, ctx) => {
      if (s === null) return;
      const problem = commandProblem(s, { placeholders: BAN_COMMAND_PLACEHOLDERS, needsPlayer: true, label });
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** A server's in-game ban and unban commands; empty or null: none (nothing is sent to that server). */
export const BanCommandsBody = withLabels(
  z.strictObject({
    ban_command: banCommand('Команда бана'),
    unban_command: banCommand('Команда разбана'),
  }),
  { ban_command: 'Команда бана', unban_command: 'Команда разбана' },
);
export type BanCommandsBody = z.infer<typeof BanCommandsBody>;

export const BanServerCommands = z.object({
  server_id: z.number(),
  server_name: z.string(),
  /** The server can receive commands (RCON set up). */
  rcon: z.boolean(),
  ban_command: z.string().nullable(),
  unban_command: z.string().nullable(),
});
export type BanServerCommands = z.infer<typeof BanServerCommands>;

// ---- The public ban list (/bans)

/** Rows on one page of /bans. */
export const PUBLIC_BANS_PAGE_SIZE = 20;
/** The list reaches this many of the newest punishments of a kind; older ones are found by name. */
export const PUBLIC_BANS_MAX_PAGES = 500;
export const PUBLIC_BAN_KINDS = ['ban', 'mute', 'kick', 'warning'] as const;
export type PublicBanKind = (typeof PUBLIC_BAN_KINDS)[number];
export const PUBLIC_BAN_KIND_TEXT: Record<PublicBanKind, string> = {
  ban: 'Баны',
  mute: 'Муты',
  kick: 'Кики',
  warning: 'Предупреждения',
};
export const PUBLIC_BAN_SOURCES = ['site', 'litebans', 'advancedban'] as const;

export const PublicBansQuery = withLabels(
  z.strictObject({
    q: z
      .string({ error: 'Поиск: ожидалась строка' })
      .trim()
      .max(16, 'Поиск: имя игрока не длиннее 16 символов')
      .refine((s) => /^[A-Za-z0-9_]*$/.test(s), 'Поиск: имя игрока — латинские буквы, цифры и «_»')
      .optional(),
    page: z.coerce
      .number({ error: 'Страница: ожидалось число' })
      .int('Страница: ожидалось целое число')
      .min(1, 'Страница: от 1')
      .max(PUBLIC_BANS_MAX_PAGES, `Страница: не дальше ${PUBLIC_BANS_MAX_PAGES}-й — найдите игрока по имени`)
      .default(1),
    kind: z.enum(PUBLIC_BAN_KINDS, { error: 'Вид: ban, mute, kick или warning' }).default('ban'),
  }),
  { q: 'Поиск', page: 'Страница', kind: 'Вид' },
);
export type PublicBansQuery = z.infer<typeof PublicBansQuery>;

/** One punishment as anyone sees it: the public reason only, never a note, an address or a silent one. */
export const PublicBan = z.object({
  /** Where it comes from: the site's own bans or the game plugin's table. */
  source: z.enum(PUBLIC_BAN_SOURCES),
  kind: z.enum(PUBLIC_BAN_KINDS),
  username: z.string(),
  /** '' when none was given. */
  reason: z.string(),
  /** Who gave it (a name, «Console»); null when unknown. */
  by: z.string().nullable(),
  /** Epoch ms. */
  since: z.number(),
  /** Epoch ms; null: forever (and for kicks and warnings without an end). */
  until: z.number().nullable(),
  /** In force now (not lifted and not ended). */
  active: z.boolean(),
  /** The server it applies to; null: every server (or the site). */
  server: z.string().nullable(),
});
export type PublicBan = z.infer<typeof PublicBan>;

export const PublicBansPage = z.object({
  items: z.array(PublicBan),
  page: z.number(),
  pages: z.number(),
  kind: z.enum(PUBLIC_BAN_KINDS),
  /** Kinds this site can show: 'ban' always, the others with a game plugin connected. */
  kinds: z.array(z.enum(PUBLIC_BAN_KINDS)),
});
export type PublicBansPage = z.infer<typeof PublicBansPage>;

// ---- A game plugin's punishments on /bans (Админ-панель → Баны → Список на сайте)

export const BAN_PLUGINS = ['litebans', 'advancedban'] as const;
export type BanPlugin = (typeof BAN_PLUGINS)[number];

/**
 * The plugin's database. `database_url` holds the database's password: the owner's alone (403
 * owner_only for staff), stored sealed and never shown back; null disconnects.
 */
export const BanSourceBody = withLabels(
  z.strictObject({
    plugin: z.enum(BAN_PLUGINS, { error: 'Плагин: litebans или advancedban' }).optional(),
    database_url: z
      .string({ error: 'Введите адрес базы данных' })
      .trim()
      .max(1000, 'Слишком длинный адрес')
      .regex(/^(mysql|mariadb|postgres|postgresql):\/\/[^\s]+$/, 'Адрес вида mysql://пользователь:пароль@хост:3306/база или postgres://…')
      .nullable()
      .optional(),
    table_prefix: z
      .string({ error: 'Префикс таблиц: ожидалась строка' })
      .regex(/^[A-Za-z0-9_]{0,32}$/, 'Префикс таблиц: латинские буквы, цифры и «_», до 32 символов')
      .optional(),
  }),
  { plugin: 'Плагин', database_url: 'Адрес базы данных плагина', table_prefix: 'Префикс таблиц' },
);
export type BanSourceBody = z.infer<typeof BanSourceBody>;

export const BanSourceView = z.object({
  plugin: z.enum(BAN_PLUGINS),
  connected: z.boolean(),
  kind: z.enum(['mysql', 'postgres']).nullable(),
  /** The address without its password, to the owner only. */
  display: z.string().nullable(),
  table_prefix: z.string(),
});
export type BanSourceView = z.infer<typeof BanSourceView>;

export const BanSourceCheck = z.object({ ok: z.boolean(), problems: z.array(z.string()), notes: z.array(z.string()) });
export type BanSourceCheck = z.infer<typeof BanSourceCheck>;
