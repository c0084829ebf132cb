import { ARGON2 } from './argon2.ts';
import { BCRYPT, BCRYPT2Y, IPB4, WBB4, XFBCRYPT } from './bcrypt.ts';
import * as digests from './digests.ts';
import { type AuthMeHash, type AuthMeMethod, type AuthMeSettings, DEFAULT_SETTINGS, LIMITS } from './method.ts';
import { PBKDF2, PBKDF2BASE64, PBKDF2DJANGO } from './pbkdf2.ts';
import { PHPBB, WORDPRESS } from './phpass.ts';

/**
 * The password hashes AuthMe (AuthMeReloaded) writes, checked and made as AuthMe does
 * (fr.xephi.authme.security.crypts; docs/authme.md lists the formats). Pure functions: nothing
 * here queues or logs; a caller runs the slow algorithms in its password-check turn.
 */

export type { AuthMeHash, AuthMeSettings } from './method.ts';

const METHODS = {
  SHA256: digests.SHA256,
  BCRYPT,
  BCRYPT2Y,
  PBKDF2,
  PBKDF2BASE64,
  PBKDF2DJANGO,
  ARGON2,
  SALTEDSHA512: digests.SALTEDSHA512,
  SALTEDSHA256: digests.SALTEDSHA256,
  DOUBLE_SHA512: digests.DOUBLE_SHA512,
  SALTED2MD5: digests.SALTED2MD5,
  WORDPRESS,
  PHPBB,
  XFBCRYPT,
  IPB3: digests.IPB3,
  IPB4,
  MYBB: digests.MYBB,
  WBB3: digests.WBB3,
  WBB4,
  JOOMLA: digests.JOOMLA,
  MD5VB: digests.MD5VB,
  SMF: digests.SMF,
  PHPFUSION: digests.PHPFUSION,
  ROYALAUTH: digests.ROYALAUTH,
  CRAZYCRYPT1: digests.CRAZYCRYPT1,
  CMW: digests.CMW,
  SHA1: digests.SHA1,
  SHA512: digests.SHA512,
  MD5: digests.MD5,
  DOUBLEMD5: digests.DOUBLEMD5,
} satisfies Record<string, AuthMeMethod>;

export type AuthMeAlgorithm = keyof typeof METHODS;

/** Every algorithm the site checks and writes, spelled as AuthMe's settings.security.passwordHash spells it. */
export const AUTHME_ALGORITHMS = Object.keys(METHODS) as AuthMeAlgorithm[];

/** AuthMe's names the site does not check, and why (for the owner). */
const NOT_SUPPORTED: Partial<Record<string, string>> = {
  TWO_FACTOR: 'TWO_FACTOR — это не хеш пароля, а секрет двухфакторного кода: пароль по нему не проверить',
  CUSTOM: 'CUSTOM — алгоритм стороннего плагина: сайт его не знает',
  PLAINTEXT: 'PLAINTEXT (пароли открытым текстом) AuthMe больше не поддерживает: переведите AuthMe на другой алгоритм',
  XAUTH: 'XAUTH (Whirlpool) сайт не поддерживает',
  WHIRLPOOL: 'WHIRLPOOL сайт не поддерживает',
};

/** Longer stored values cannot come from AuthMe (its longest hash has 165 characters, the column 255). */
const MAX_STORED = 1024;
/** Longer passwords match nothing and are not hashed (AuthMe's own limit is passwordMaxLength, 30 by default). */
export const MAX_PASSWORD_LENGTH = 1024;

/** The algorithm named as in AuthMe's config (case and surrounding spaces ignored, as AuthMe's config reader does), or null. */
export function parseAuthMeAlgorithm(name: string): AuthMeAlgorithm | null {
  const key = typeof name === 'string' ? name.trim().toUpperCase() : '';
  return Object.hasOwn(METHODS, key) ? (key as AuthMeAlgorithm) : null;
}

export interface AuthMeAlgorithmInfo {
  /**
   * Where AuthMe keeps the salt: inside the hash ('embedded'), in its salt column ('column' — the
   * site must read and write that column, so AuthMe's DataSource.mySQLColumnSalt must name one),
   * derived from the name ('username'), or none.
   */
  salt: 'embedded' | 'column' | 'username' | 'none';
  /** Tens of milliseconds or more per check (bcrypt, Argon2, PBKDF2, phpass): run it in the password-check turn. */
  slow: boolean;
  /** AuthMe's own list marks it «Do not use» or «Deprecated». */
  weak: boolean;
}

export function authMeAlgorithmInfo(algorithm: AuthMeAlgorithm): AuthMeAlgorithmInfo {
  const { salt, slow, weak } = METHODS[algorithm];
  return { salt, slow, weak };
}

/** Why the site cannot check this algorithm (for the owner), or null when it can. */
export function unsupportedAuthMeAlgorithm(name: string): string | null {
  if (parseAuthMeAlgorithm(name)) return null;
  const key = typeof name === 'string' ? name.trim().toUpperCase() : '';
  return (Object.hasOwn(NOT_SUPPORTED, key) ? NOT_SUPPORTED[key] : null) ?? `Алгоритм «${String(name).slice(0, 40)}» AuthMe не знает`;
}

export type AuthMeRowCheck = { ok: true } | { ok: false; problem: 'unsupported' | 'malformed'; reason: string };

interface Row {
  method: AuthMeMethod;
  hash: string;
  salt: string | null;
}

/** A column's value as a driver hands it over: text, bytes of UTF-8, or NULL. */
function columnText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return undefined;
}

function readRow(algorithm: string, storedHash: unknown, storedSalt: unknown): Row | Exclude<AuthMeRowCheck, { ok: true }> {
  const name = parseAuthMeAlgorithm(algorithm);
  if (!name) return { ok: false, problem: 'unsupported', reason: unsupportedAuthMeAlgorithm(algorithm)! };
  const method: AuthMeMethod = METHODS[name];
  const hash = columnText(storedHash);
  const salt = columnText(storedSalt);
  const malformed = (reason: string) => ({ ok: false as const, problem: 'malformed' as const, reason });
  if (hash === undefined || salt === undefined) return malformed('хеш или соль не текст');
  if (hash === null || hash === '') return malformed('пустой хеш');
  if (hash.length > MAX_STORED || (salt?.length ?? 0) > MAX_STORED) return malformed(`хеш или соль длиннее ${MAX_STORED} символов`);
  const problem = method.inspect(hash, salt);
  return problem === null ? { method, hash, salt } : malformed(problem);
}

/**
 * Whether a stored row can be checked at all, without hashing: 'unsupported' for an algorithm the
 * site does not know, 'malformed' (with the reason) for a row no password can match under
 * AuthMe's rules — empty hash, salt column NULL where the algorithm keeps its salt there, a hash
 * of another format, upper-case hex, or costs beyond the site's limits. For an import's dry run
 * and the owner's warnings.
 */
export function inspectAuthMeHash(algorithm: string, storedHash: unknown, storedSalt: unknown): AuthMeRowCheck {
  const row = readRow(algorithm, storedHash, storedSalt);
  return 'method' in row ? { ok: true } : row;
}

export type AuthMeVerdict = boolean | 'unsupported' | 'malformed';

/**
 * Checks a password against a row of AuthMe's table as AuthMe's /login would: true or false for
 * a whole row, 'unsupported' for an algorithm the site does not know, 'malformed' for a row no
 * password can match (see inspectAuthMeHash). Never throws, whatever the row holds.
 *
 * username is the player's name in any case (AuthMe hashes with it lower-cased; CRAZYCRYPT1 and
 * SMF use it). For slow algorithms (authMeAlgorithmInfo(...).slow) call this inside the site's
 * password-check turn.
 */
export async function verifyAuthMe(
  algorithm: string,
  storedHash: unknown,
  storedSalt: unknown,
  password: string,
  username: string,
): Promise<AuthMeVerdict> {
  const row = readRow(algorithm, storedHash, storedSalt);
  if (!('method' in row)) return row.problem;
  if (typeof password !== 'string' || password.length > MAX_PASSWORD_LENGTH) return false;
  try {
    return await row.method.verify(password, row.hash, row.salt, lowerName(username));
  } catch {
    return 'malformed';
  }
}

/**
 * A new hash of the password exactly as AuthMe configured with this algorithm writes it: the
 * hash column, and the salt column's value for algorithms that keep their salt apart (else
 * null). settings are AuthMe's config values that change new hashes (defaults: AuthMe's).
 * Throws a RangeError for an algorithm the site does not know, settings out of range or a
 * password over MAX_PASSWORD_LENGTH — a caller checks those first.
 */
export async function hashForAuthMe(
  algorithm: string,
  password: string,
  username: string,
  settings: Partial<AuthMeSettings> = {},
): Promise<AuthMeHash> {
  const name = parseAuthMeAlgorithm(algorithm);
  if (!name) throw new RangeError(unsupportedAuthMeAlgorithm(algorithm)!);
  if (typeof password !== 'string' || password.length > MAX_PASSWORD_LENGTH) throw new RangeError('password too long');
  const full: AuthMeSettings = {
    bcryptCost: settings.bcryptCost ?? DEFAULT_SETTINGS.bcryptCost,
    pbkdf2Rounds: settings.pbkdf2Rounds ?? DEFAULT_SETTINGS.pbkdf2Rounds,
    saltedMd5Length: settings.saltedMd5Length ?? DEFAULT_SETTINGS.saltedMd5Length,
  };
  if (!Number.isInteger(full.bcryptCost) || full.bcryptCost < 4 || full.bcryptCost > LIMITS.bcryptCost) {
    throw new RangeError(`bcryptCost must be 4–${LIMITS.bcryptCost}`);
  }
  if (!Number.isInteger(full.pbkdf2Rounds) || full.pbkdf2Rounds > LIMITS.pbkdf2Iterations) {
    throw new RangeError(`pbkdf2Rounds must be at most ${LIMITS.pbkdf2Iterations}`);
  }
  if (!Number.isInteger(full.saltedMd5Length) || full.saltedMd5Length < 0 || full.saltedMd5Length > 255) {
    throw new RangeError('saltedMd5Length must be 0–255');
  }
  return METHODS[name].create(password, lowerName(username), full);
}

/** PasswordSecurity lower-cases the name with Locale.ROOT before any algorithm sees it. */
function lowerName(username: string): string {
  return typeof username === 'string' ? username.toLowerCase() : '';
}
