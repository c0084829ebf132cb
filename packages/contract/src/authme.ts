import { z } from 'zod';
import { withLabels } from './common.ts';
import { Email } from './accounts.ts';

/**
 * AuthMe (AuthMeReloaded), the login plugin of offline-mode game servers: one account for the
 * site and the game (docs/authme.md). The owner connects AuthMe's database in Админ-панель →
 * AuthMe; the connection address carries the database password, so only the owner sets it and
 * nobody reads it back.
 */

/** Where a setting's value comes from: the admin, the environment (AUTHME_*), or AuthMe's default. */
export const AuthMeSource = z.enum(['set', 'env', 'default']);
export type AuthMeSource = z.infer<typeof AuthMeSource>;

/** AuthMe's column settings (DataSource.mySQLColumnName …) the site reads and writes. */
export const AUTHME_COLUMN_KEYS = ['name', 'realname', 'password', 'salt', 'email', 'regdate', 'regip'] as const;
export type AuthMeColumnKey = (typeof AUTHME_COLUMN_KEYS)[number];

/** Which of AuthMe's config keys names each column, and its default there (the salt column is unset by default). */
export const AUTHME_COLUMN_TEXT: Record<AuthMeColumnKey, { key: string; default: string; label: string }> = {
  name: { key: 'mySQLColumnName', default: 'username', label: 'Имя (нижний регистр)' },
  realname: { key: 'mySQLRealName', default: 'realname', label: 'Имя как в игре' },
  password: { key: 'mySQLColumnPassword', default: 'password', label: 'Хеш пароля' },
  salt: { key: 'mySQLColumnSalt', default: '', label: 'Соль (пусто — нет столбца)' },
  email: { key: 'mySQLColumnEmail', default: 'email', label: 'Почта' },
  regdate: { key: 'mySQLColumnRegisterDate', default: 'regdate', label: 'Дата регистрации' },
  regip: { key: 'mySQLColumnRegisterIp', default: 'regip', label: 'IP при регистрации' },
};

/** A table or column name as AuthMe puts it into its SQL: unquoted, so letters, digits and «_» only. */
export const SQL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const SqlName = z
  .string({ error: 'Введите имя' })
  .trim()
  .regex(SQL_NAME_RE, 'Только латинские буквы, цифры и «_», не с цифры, до 64 символов');

export const AuthMeAlgorithmInfo = z.object({
  name: z.string(),
  /** Where the salt lives; 'column' needs the salt column set. */
  salt: z.enum(['embedded', 'column', 'username', 'none']),
  slow: z.boolean(),
  /** AuthMe's own list calls it «Do not use» or «Deprecated». */
  weak: z.boolean(),
});

export const AuthMeWarning = z.object({
  kind: z.string(),
  /** What happened, in Russian. */
  text: z.string(),
  count: z.number(),
  first_at: z.number(),
  last_at: z.number(),
  /** The latest case: a name, the database's error (never the address or its password). Text, never markup. */
  detail: z.string().nullable(),
});
export type AuthMeWarning = z.infer<typeof AuthMeWarning>;

export const AuthMeImportState = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);
export type AuthMeImportState = z.infer<typeof AuthMeImportState>;

export const AuthMeImportView = z.object({
  id: z.number(),
  /** 'dry': counts only, nothing is written; 'import': accounts are made. */
  mode: z.enum(['dry', 'import']),
  state: AuthMeImportState,
  created_at: z.number(),
  finished_at: z.number().nullable(),
  /** AuthMe's rows when the run began. */
  total: z.number(),
  processed: z.number(),
  /** Accounts made (a dry run: that would be made). */
  created: z.number(),
  /** Rows already linked to an account of the site (an earlier import, a login). */
  linked: z.number(),
  /** Names a site account has already (not linked): left as they are. */
  name_collisions: z.number(),
  /** Addresses another account has, or no address: the player gives one at the first login. */
  without_email: z.number(),
  /** Names the site's rules refuse: not imported. */
  refused: z.number(),
  /** Hashes no password can match (another algorithm, a broken row): imported, reported. */
  broken_hashes: z.number(),
  error: z.string().nullable(),
});
export type AuthMeImportView = z.infer<typeof AuthMeImportView>;

export const AuthMeRefusal = z.object({ name: z.string(), reason: z.string() });
export const AuthMeRefusalsResponse = z.object({ refusals: z.array(AuthMeRefusal), more: z.boolean() });
export type AuthMeRefusalsResponse = z.infer<typeof AuthMeRefusalsResponse>;

export const AuthMeView = z.object({
  connection: z.object({
    source: z.enum(['set', 'env', 'unset']),
    /** mysql (MySQL, MariaDB), postgres or sqlite; null when unset. */
    kind: z.enum(['mysql', 'postgres', 'sqlite']).nullable(),
    /** The address without its password, for the owner only; null for staff. */
    display: z.string().nullable(),
  }),
  table: z.string(),
  table_source: AuthMeSource,
  columns: z.record(z.string(), z.string()),
  /** The algorithm the site writes (AuthMe's settings.security.passwordHash). */
  hash: z.string(),
  hash_source: AuthMeSource,
  /** AuthMe's settings.security.legacyHashes: also read. */
  legacy_hashes: z.array(z.string()),
  bcrypt_cost: z.number(),
  pbkdf2_rounds: z.number(),
  salted_md5_length: z.number(),
  /** A ban on the site also locks the AuthMe login. */
  lock_on_ban: z.boolean(),
  algorithms: z.array(AuthMeAlgorithmInfo),
  /** Accounts of the site linked to an AuthMe row. */
  linked: z.number(),
  /** Password writes waiting for AuthMe (it was unreachable). */
  pending_writes: z.number(),
  warnings: z.array(AuthMeWarning),
  last_import: AuthMeImportView.nullable(),
});
export type AuthMeView = z.infer<typeof AuthMeView>;

const AlgorithmName = z.string({ error: 'Выберите алгоритм' }).trim().min(1, 'Выберите алгоритм').max(40, 'Алгоритм AuthMe не знает');

/**
 * `PUT /api/admin/authme`: a field left out stays; null returns it to the environment's value or
 * AuthMe's default. `database_url` is the owner's alone (403 owner_only for staff) and write-only.
 */
export const AuthMeSettingsBody = withLabels(
  z.strictObject({
    database_url: z
      .string({ error: 'Введите адрес базы данных' })
      .trim()
      .max(1000, 'Слишком длинный адрес')
      .regex(
        /^(mysql|mariadb|postgres|postgresql):\/\/[^\s]+$|^sqlite:[^\s].*$/,
        'Адрес вида mysql://пользователь:пароль@хост:3306/база, postgres://… или sqlite:/путь/authme.db',
      )
      .nullable()
      .optional(),
    table: SqlName.nullable().optional(),
    columns: z
      .strictObject({
        name: SqlName.optional(),
        realname: SqlName.optional(),
        password: SqlName.optional(),
        salt: z.union([SqlName, z.literal('')]).optional(),
        email: SqlName.optional(),
        regdate: SqlName.optional(),
        regip: SqlName.optional(),
      })
      .optional(),
    hash: AlgorithmName.nullable().optional(),
    legacy_hashes: z.array(AlgorithmName).max(10, 'Не больше 10 алгоритмов').optional(),
    bcrypt_cost: z.number({ error: 'Введите число' }).int('Целое число').min(4, 'От 4 до 16').max(16, 'От 4 до 16').optional(),
    pbkdf2_rounds: z
      .number({ error: 'Введите число' })
      .int('Целое число')
      .min(0, 'От 0 до 2 000 000')
      .max(2_000_000, 'От 0 до 2 000 000')
      .optional(),
    salted_md5_length: z.number({ error: 'Введите число' }).int('Целое число').min(0, 'От 0 до 255').max(255, 'От 0 до 255').optional(),
    lock_on_ban: z.boolean({ error: 'Да или нет' }).optional(),
  }),
  {
    database_url: 'Адрес базы данных AuthMe',
    table: 'Таблица',
    columns: 'Столбцы',
    hash: 'Алгоритм',
    legacy_hashes: 'Старые алгоритмы',
    bcrypt_cost: 'Стоимость BCRYPT',
    pbkdf2_rounds: 'Итерации PBKDF2',
    salted_md5_length: 'Длина соли SALTED2MD5',
    lock_on_ban: 'Блокировка на сайте закрывает вход в игру',
  },
);
export type AuthMeSettingsBody = z.infer<typeof AuthMeSettingsBody>;

export const AuthMeCheckResponse = z.object({
  ok: z.boolean(),
  /** What is wrong, one sentence each, in Russian (refused, wrong password, unknown database, table or column missing, unknown algorithm…). */
  problems: z.array(z.string()),
  /** What was found (rows, a sample of the hashes). */
  notes: z.array(z.string()),
});
export type AuthMeCheckResponse = z.infer<typeof AuthMeCheckResponse>;

export const AuthMeImportBody = withLabels(z.strictObject({ mode: z.enum(['dry', 'import'], { error: 'dry или import' }) }), {
  mode: 'Что сделать',
});
export type AuthMeImportBody = z.infer<typeof AuthMeImportBody>;

/**
 * `POST /api/authme/email`: a player whose account came from AuthMe without an address gives one;
 * the name and password are checked again (the login form still holds them), and a confirmation
 * letter goes to the address.
 */
export const AuthMeEmailBody = withLabels(
  z.strictObject({
    username: z.string({ error: 'Введите имя' }).min(1, 'Введите имя').max(256, 'Неверное имя пользователя или пароль'),
    password: z.string({ error: 'Введите пароль' }).min(1, 'Введите пароль').max(256, 'Неверное имя пользователя или пароль'),
    email: Email,
  }),
  { username: 'Имя', password: 'Пароль', email: 'Почта' },
);
export type AuthMeEmailBody = z.infer<typeof AuthMeEmailBody>;
