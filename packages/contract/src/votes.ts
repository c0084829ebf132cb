import { z } from 'zod';
import { commandProblem } from './commands.ts';
import { Roubles, withLabels } from './common.ts';

/** The server tops whose vote callbacks the site understands (docs/votes.md says what each sends). */
export const VOTE_KINDS = ['topcraft', 'mctop', 'minecraftrating', 'monitoringminecraft', 'custom'] as const;
export type VoteKind = (typeof VOTE_KINDS)[number];

export const VOTE_KIND_TEXT: Record<VoteKind, string> = {
  topcraft: 'TopCraft',
  mctop: 'McTOP',
  minecraftrating: 'MinecraftRating',
  monitoringminecraft: 'MonitoringMinecraft',
  custom: 'Свой топ',
};

export const VOTE_HASHES = ['sha1', 'sha256', 'md5'] as const;
export type VoteHash = (typeof VOTE_HASHES)[number];

const Field = z
  .string({ error: 'Введите имя поля' })
  .trim()
  .regex(/^[A-Za-z0-9_.-]{1,40}$/, 'Имя поля: латинские буквы, цифры, _ . - (до 40 символов)');

/** A top of the owner's own: which form fields carry what, and how the signature is made. */
export const CustomVoteScheme = withLabels(
  z.strictObject({
    username_field: Field,
    /** Empty: the top sends no time (replays are then stopped by the cooldown alone). */
    timestamp_field: z.union([Field, z.literal('')]).default(''),
    signature_field: Field,
    hash: z.enum(VOTE_HASHES, { error: 'Выберите алгоритм: sha1, sha256 или md5' }),
    /** What is hashed: {username}, {timestamp} and {secret} are put in (e.g. `{username}{timestamp}{secret}`). */
    template: z
      .string({ error: 'Введите шаблон подписи' })
      .trim()
      .min(1, 'Введите шаблон подписи')
      .max(200, 'Шаблон подписи: до 200 символов')
      .regex(/^(?=.*\{secret\})(?=.*\{username\})/, 'Шаблон подписи должен содержать {username} и {secret}'),
  }),
  {
    username_field: 'Поле с ником',
    timestamp_field: 'Поле со временем',
    signature_field: 'Поле с подписью',
    hash: 'Алгоритм',
    template: 'Шаблон подписи',
  },
);
export type CustomVoteScheme = z.infer<typeof CustomVoteScheme>;

const RewardCommands = z
  .array(
    z
      .string({ error: 'Команда должна быть строкой' })
      .trim()
      .superRefine((c, ctx) => {
        const problem = commandProblem(c, { placeholders: ['player', 'uuid'], label: 'Команда' });
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
  )
  .max(20, 'Не больше 20 команд');

/** `POST /api/admin/vote-sites`; PUT takes the same fields, and an empty secret keeps the old one. */
export const VoteSiteBody = withLabels(
  z
    .strictObject({
      kind: z.enum(VOTE_KINDS, { error: 'Выберите топ' }),
      title: z.string({ error: 'Введите название' }).trim().min(1, 'Введите название').max(100, 'Название: до 100 символов'),
      url: z
        .string({ error: 'Введите ссылку' })
        .trim()
        .max(500, 'Ссылка: до 500 символов')
        .regex(/^https?:\/\/[^\s]+$/i, 'Ссылка должна начинаться с http:// или https://'),
      secret: z.string({ error: 'Введите секретный ключ' }).trim().max(200, 'Секретный ключ: до 200 символов').default(''),
      reward_amount: Roubles.default(0),
      reward_commands: RewardCommands.default([]),
      server_ids: z
        .array(z.number().int('Некорректный сервер').positive('Некорректный сервер').max(2_147_483_647, 'Некорректный сервер'))
        .max(50, 'Не больше 50 серверов')
        .optional(),
      cooldown_hours: z
        .number({ error: 'Перерыв: число часов' })
        .int('Перерыв: целое число часов')
        .min(1, 'Перерыв: от 1 часа')
        .max(720, 'Перерыв: до 720 часов')
        .default(24),
      custom: CustomVoteScheme.nullable().optional(),
      enabled: z.boolean({ error: 'Поле enabled должно быть логическим' }).default(true),
    })
    .superRefine((b, ctx) => {
      if (b.kind === 'custom' && !b.custom)
        ctx.addIssue({ code: 'custom', path: ['custom'], message: 'Опишите поля и подпись своего топа' });
    }),
  {
    kind: 'Топ',
    title: 'Название',
    url: 'Ссылка для голосования',
    secret: 'Секретный ключ',
    reward_amount: 'Награда на баланс',
    reward_commands: 'Команды награды',
    server_ids: 'Серверы',
    cooldown_hours: 'Перерыв между голосами, ч',
    custom: 'Свой топ',
    enabled: 'Включён',
  },
);
export type VoteSiteBody = z.input<typeof VoteSiteBody>;

export const VOTE_OUTCOMES = ['accepted', 'replay', 'cooldown', 'bad_signature', 'stale', 'unknown_name', 'bad_request', 'test'] as const;
export type VoteOutcome = (typeof VOTE_OUTCOMES)[number];

export const VOTE_OUTCOME_TEXT: Record<VoteOutcome, string> = {
  accepted: 'Принят, награда выдана',
  replay: 'Повтор',
  cooldown: 'Рано: перерыв ещё не прошёл',
  bad_signature: 'Неверная подпись',
  stale: 'Устаревшее время',
  unknown_name: 'Неизвестный ник',
  bad_request: 'Неполный запрос',
  test: 'Проверка от топа',
};

export const VoteLogEntry = z.object({
  outcome: z.enum(VOTE_OUTCOMES),
  username: z.string().nullable(),
  ip: z.string().nullable(),
  /** ISO 8601 */
  at: z.string(),
});
export type VoteLogEntry = z.infer<typeof VoteLogEntry>;

export const AdminVoteSite = z.object({
  id: z.number(),
  kind: z.enum(VOTE_KINDS),
  title: z.string(),
  url: z.string(),
  /** The secret's last characters, to recognise it; the whole secret is never sent back. */
  secret_hint: z.string(),
  reward_amount: z.number(),
  reward_commands: z.array(z.string()),
  server_ids: z.array(z.number()),
  cooldown_hours: z.number(),
  custom: CustomVoteScheme.nullable(),
  enabled: z.boolean(),
  /** Where the top must send its callbacks. */
  callback_url: z.string(),
  /** Callbacks by outcome since the top was added. */
  counts: z.partialRecord(z.enum(VOTE_OUTCOMES), z.number()),
  /** The latest callbacks, newest first (at most 50 are kept). */
  recent: z.array(VoteLogEntry),
});
export type AdminVoteSite = z.infer<typeof AdminVoteSite>;

/** Prizes for places 1…N of a month's top voters, roubles. */
export const VotePrizesBody = withLabels(
  z.strictObject({
    prizes: z.array(Roubles).max(20, 'Не больше 20 мест'),
  }),
  { prizes: 'Призы за места' },
);
export type VotePrizesBody = z.infer<typeof VotePrizesBody>;

export const PlayerVoteSite = z.object({
  id: z.number(),
  kind: z.enum(VOTE_KINDS),
  title: z.string(),
  url: z.string(),
  reward_amount: z.number(),
  /** Items or privileges the vote gives in game. */
  has_commands: z.boolean(),
  /** ISO 8601: when the player may vote here again for a reward; null — now (or a guest). */
  next_vote_at: z.string().nullable(),
});
export type PlayerVoteSite = z.infer<typeof PlayerVoteSite>;

export const VotesResponse = z.object({
  sites: z.array(PlayerVoteSite),
  /** YYYY-MM in the site's time zone. */
  month: z.string(),
  /** The player's rewarded votes this month; null for a guest. */
  my_votes: z.number().nullable(),
  /** Roubles for places 1…N. */
  prizes: z.array(z.number()),
});
export type VotesResponse = z.infer<typeof VotesResponse>;

export const VoteTopQuery = withLabels(
  z.strictObject({
    month: z
      .string({ error: 'Месяц в виде ГГГГ-ММ' })
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Месяц в виде ГГГГ-ММ')
      .optional(),
  }),
  { month: 'Месяц' },
);

export const VoteTopResponse = z.object({
  month: z.string(),
  /** `username` null: the player hid their profile (the place, votes and prize stay, so nobody else moves up). */
  top: z.array(z.object({ place: z.number(), username: z.string().nullable(), votes: z.number(), prize: z.number().nullable() })),
  /** The month's prizes were paid (after it ended). */
  paid: z.boolean(),
});
export type VoteTopResponse = z.infer<typeof VoteTopResponse>;
