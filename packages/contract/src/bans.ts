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
