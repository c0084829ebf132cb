import { randomBytes } from 'node:crypto';
import { Email, USERNAME_RE } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { hashPassword, hashIsOutdated, passwordWork, verifyPassword, type Caller } from '../../front-door/passwords.ts';
import { authMeAlgorithmInfo, hashForAuthMe, inspectAuthMeHash, verifyAuthMe, type AuthMeAlgorithm } from '../../lib/authme/hashes.ts';
import { isUniqueViolation } from '../../lib/errors.ts';
import { activeBan } from '../users/ban-status.ts';
import type { LinkedAccounts, LinkedVerdict, PasswordCaller } from '../users/users.ports.ts';
import { emailHeld, insertUser, passwordStateOf, profileUuidFor, replacePasswordHash, type User } from '../users/users.repo.ts';
import { AuthMeDatabase, type AuthMeRow } from './authme.database.ts';
import * as repo from './authme.repo.ts';
import { authMeConfig, hashProblem, type AuthMeConfig } from './authme.settings.ts';

/**
 * One account for the site and the game server's AuthMe (docs/authme.md). Where the site and
 * AuthMe differ, the side that changed since they were last in step wins: a password changed in
 * the game (the row's hash is not the one last seen) is checked against AuthMe's row and then
 * becomes the site's; one changed on the site is written to AuthMe. While AuthMe's database cannot
 * be reached, site accounts log in with the site's own hashes and the owner sees a counted warning.
 */

export const TEXTS = {
  emailRequired: 'Пароль верный. Ваш аккаунт перенесён из игры без почты: укажите адрес, мы пришлём на него ссылку для подтверждения.',
  nameRefused: (name: string) =>
    `Пароль верный, но имя «${name}» не подходит для сайта (от 3 до 16 символов: латинские буквы, цифры и «_»). Администрация уже знает об этом.`,
  emailSent: 'Мы отправили письмо со ссылкой на указанную почту. Откройте её, чтобы подтвердить адрес, и войдите снова.',
} as const;

/** What each kind of warning means, for the owner (Админ-панель → AuthMe). */
export const WARNING_TEXT: Record<string, string> = {
  unreachable: 'База данных AuthMe не ответила: вход работал по паролям сайта',
  broken_row: 'Строка AuthMe, которую нельзя проверить (пустой хеш, нет соли, хеш другого алгоритма): вход отклонён',
  unsupported: 'Алгоритм AuthMe, который сайт не поддерживает: вход отклонён',
  name_refused: 'Имя из AuthMe не подходит по правилам сайта: аккаунт не создан',
  name_taken: 'Имя есть и на сайте, и в AuthMe, но аккаунты разные (пароли не совпали): они не связаны',
  write_failed: 'Не удалось записать пароль в AuthMe: запись повторится',
  busy: 'Проверки паролей были заняты: запись в AuthMe отложена до следующего входа',
};

/** An address AuthMe's older versions put into every row (SqLiteMigrater clears it): no address. */
const AUTHME_PLACEHOLDER_EMAIL = 'your@email.com';
/** The domain of the address an account without one gets (RFC 2606: never delivered). */
export const PLACEHOLDER_DOMAIN = 'authme.invalid';

// --- Connections ------------------------------------------------------------------------------

const connections = new WeakMap<object, { key: string; db: AuthMeDatabase }>();

/** AuthMe's table as configured now, with this site's open connection to it; null while none is set. */
export async function authMeOf(ctx: AppContext): Promise<{ cfg: AuthMeConfig; adb: AuthMeDatabase } | null> {
  const cfg = await authMeConfig(ctx);
  if (!cfg) {
    await closeAuthMe(ctx);
    return null;
  }
  return { cfg, adb: connectionFor(ctx, cfg) };
}

/** The pool for `cfg`, made anew when the address, table or columns changed (the old one closed). */
export function connectionFor(owner: object, cfg: AuthMeConfig): AuthMeDatabase {
  const held = connections.get(owner);
  if (held?.key === cfg.key) return held.db;
  void held?.db.close();
  const db = new AuthMeDatabase(cfg);
  connections.set(owner, { key: cfg.key, db });
  return db;
}

export async function closeAuthMe(owner: object): Promise<void> {
  const held = connections.get(owner);
  connections.delete(owner);
  await held?.db.close();
}

// --- Warnings ---------------------------------------------------------------------------------

/** A counted warning for the owner; never fails the request it comes from. */
export async function warn(db: Db, kind: keyof typeof WARNING_TEXT, detail: string | null): Promise<void> {
  try {
    await repo.addWarning(db, kind, detail);
  } catch {
    // The count is for the owner's eyes; a login must not fail for it.
  }
}

// --- Hashes -----------------------------------------------------------------------------------

/** A column's value as text (drivers hand over text, bytes or numbers), or null. */
export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return null;
}

/** The algorithms a row is read with, AuthMe's order: the configured one, then the legacy ones. */
export function readOrder(cfg: AuthMeConfig | null, first?: string): AuthMeAlgorithm[] {
  const all = [first, cfg?.hash, ...(cfg?.legacy ?? [])].filter((a): a is AuthMeAlgorithm => typeof a === 'string' && a !== '');
  return [...new Set(all)];
}

/** The first of `algorithms` whose format the stored hash has, or the reason none has. */
export function algorithmOf(
  algorithms: AuthMeAlgorithm[],
  hash: unknown,
  salt: unknown,
): { algorithm: AuthMeAlgorithm } | { problem: 'malformed' | 'unsupported'; reason: string } {
  let first: { problem: 'malformed' | 'unsupported'; reason: string } | null = null;
  for (const a of algorithms) {
    const seen = inspectAuthMeHash(a, hash, salt);
    if (seen.ok) return { algorithm: a };
    first ??= { problem: seen.problem, reason: seen.reason };
  }
  return first ?? { problem: 'unsupported', reason: 'алгоритм AuthMe не задан' };
}

type RowCheck = { ok: true; algorithm: AuthMeAlgorithm } | { ok: false; problem?: 'malformed' | 'unsupported'; reason?: string };

/**
 * The password against a stored AuthMe hash, as AuthMe's /login checks it: each algorithm the
 * row's shape fits, in order; slow ones in the caller's password-check turn.
 */
export async function checkStored(
  algorithms: AuthMeAlgorithm[],
  hash: unknown,
  salt: unknown,
  password: string,
  name: string,
  caller: PasswordCaller,
): Promise<RowCheck> {
  let fits = false;
  let first: { problem: 'malformed' | 'unsupported'; reason: string } | null = null;
  for (const a of algorithms) {
    const seen = inspectAuthMeHash(a, hash, salt);
    if (!seen.ok) {
      first ??= { problem: seen.problem, reason: seen.reason };
      continue;
    }
    fits = true;
    const check = () => verifyAuthMe(a, hash, salt, password, name);
    const verdict = authMeAlgorithmInfo(a).slow ? await passwordWork.run(caller as Caller, check) : await check();
    if (verdict === true) return { ok: true, algorithm: a };
  }
  return fits ? { ok: false } : { ok: false, ...(first ?? { problem: 'unsupported' as const, reason: 'алгоритм AuthMe не задан' }) };
}

/** A new hash for AuthMe's table in the algorithm the owner chose, made in the caller's turn when slow. */
export async function hashForWrite(
  cfg: AuthMeConfig,
  password: string,
  name: string,
  caller: PasswordCaller,
): Promise<{ hash: string; salt: string | null; algorithm: AuthMeAlgorithm }> {
  const algorithm = cfg.hash!;
  const make = () => hashForAuthMe(algorithm, password, name, cfg.hashSettings);
  const made = authMeAlgorithmInfo(algorithm).slow ? await passwordWork.run(caller as Caller, make) : await make();
  return { ...made, algorithm };
}

/** A secret nobody knows: its hash locks a banned player's game login. */
export function lockSecret(): string {
  return randomBytes(24).toString('base64url');
}

// --- Names and addresses ----------------------------------------------------------------------

/** The name as the player writes it: AuthMe's realname when it is the same name, else the lower-case one. */
export function displayName(row: Pick<AuthMeRow, 'name' | 'realname'>): string {
  const real = text(row.realname);
  return real !== null && real.toLowerCase() === row.name.toLowerCase() ? real : row.name;
}

/** Why the site's rules refuse a name (for the owner), or null. */
export function nameProblem(name: string): string | null {
  if (USERNAME_RE.test(name)) return null;
  if (name.length < 3) return 'короче 3 символов';
  if (name.length > 16) return `длиннее 16 символов (${name.length})`;
  return 'недопустимые символы (можно латинские буквы, цифры и «_»)';
}

/** A name fit to show in the owner's lists: cut, control characters made visible. Shown as text, never markup. */
export function shownName(name: string): string {
  // Control characters (a row may hold anything) shown as �, so a list line stays one line.
  const clean = [...name].map((ch) => (ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? '\ufffd' : ch)).join('');
  return clean.length > 64 ? `${clean.slice(0, 64)}… (${name.length} символов)` : clean;
}

/** AuthMe's address when the site can use it, lower-cased for comparing; else null. */
export function usableEmail(value: unknown): string | null {
  const raw = text(value)?.trim();
  if (!raw || raw.toLowerCase() === AUTHME_PLACEHOLDER_EMAIL) return null;
  const parsed = Email.safeParse(raw);
  if (!parsed.success || parsed.data.toLowerCase().endsWith(`@${PLACEHOLDER_DOMAIN}`)) return null;
  return parsed.data;
}

export const placeholderEmail = (nameLower: string) => `${nameLower}@${PLACEHOLDER_DOMAIN}`;

// --- Logins -----------------------------------------------------------------------------------

const sameStored = (cfg: AuthMeConfig | null, row: AuthMeRow, link: repo.Link) =>
  text(row.password) === link.hash && (!cfg?.columns.salt || (text(row.salt) ?? null) === (link.salt ?? null));

/** The site's own hash made anew when it is AuthMe's copy or of older parameters; the user as it is then. */
async function renewSiteHash(db: Db, user: User, password: string, caller: PasswordCaller): Promise<User> {
  if (user.password_hash !== repo.NO_SITE_PASSWORD && !hashIsOutdated(user.password_hash)) return user;
  let fresh: string;
  try {
    fresh = await hashPassword(password, caller as Caller);
  } catch {
    return user;
  }
  return (await replacePasswordHash(db, user, fresh)) ? { ...user, password_hash: fresh } : user;
}

type Verdict = LinkedVerdict;

async function linkedLogin(
  ctx: AppContext,
  found: { cfg: AuthMeConfig; adb: AuthMeDatabase } | null,
  user: User,
  link: repo.Link,
  password: string,
  caller: PasswordCaller,
  launcher: boolean,
): Promise<Verdict> {
  const cfg = found?.cfg ?? null;
  let row: AuthMeRow | null | 'unavailable' = 'unavailable';
  // A locked row holds the lock, not the player's password: the site's copy decides meanwhile.
  if (found && link.lock_hash === null) {
    try {
      row = await found.adb.find(link.authme_name);
    } catch (err) {
      await warn(ctx.db, 'unreachable', (err as Error).message);
    }
  }
  if (row !== 'unavailable' && row !== null && !sameStored(cfg, row, link)) {
    // Changed in the game since the last step: AuthMe's row decides, and its password becomes the site's.
    const checked = await checkStored(readOrder(cfg), row.password, row.salt, password, link.authme_name, caller);
    if (!checked.ok) {
      if (checked.problem)
        await warn(
          ctx.db,
          checked.problem === 'unsupported' ? 'unsupported' : 'broken_row',
          `${shownName(link.authme_name)}: ${checked.reason}`,
        );
      return { kind: 'wrong' };
    }
    // Until the site's hash of it is stored the link keeps the old step, so this check repeats rather than the old password working.
    const siteHash = await hashPassword(password, caller as Caller).catch(() => null);
    const stored = siteHash !== null && (await replacePasswordHash(ctx.db, user, siteHash));
    if (stored)
      await repo.updateLink(ctx.db, user.id, {
        hash: text(row.password)!,
        salt: text(row.salt),
        algorithm: checked.algorithm,
        site_hash: siteHash,
      });
    return after(user, stored ? { ...user, password_hash: siteHash } : user, link, launcher);
  }
  // In step (or AuthMe not at hand): the site's own password, or AuthMe's copy for an account that has none yet.
  let right: boolean;
  if (user.password_hash === repo.NO_SITE_PASSWORD) {
    const checked = await checkStored(readOrder(cfg, link.algorithm), link.hash, link.salt, password, link.authme_name, caller);
    if (!checked.ok && checked.problem)
      await warn(
        ctx.db,
        checked.problem === 'unsupported' ? 'unsupported' : 'broken_row',
        `${shownName(link.authme_name)}: ${checked.reason}`,
      );
    right = checked.ok;
  } else right = await verifyPassword(user.password_hash, password, caller as Caller);
  if (!right) return { kind: 'wrong' };
  const renewed = await renewSiteHash(ctx.db, user, password, caller);
  const siteAhead = user.password_hash !== repo.NO_SITE_PASSWORD && link.site_hash !== user.password_hash;
  if (siteAhead && found && row !== 'unavailable' && row !== null) {
    // The site's password changed and AuthMe never heard (a write lost): it hears now.
    await writePassword(ctx, found.cfg, renewed, password, caller);
  } else if (!siteAhead && renewed.password_hash !== link.site_hash && renewed.password_hash !== repo.NO_SITE_PASSWORD) {
    await repo.updateLink(ctx.db, user.id, { site_hash: renewed.password_hash });
  }
  return after(user, renewed, link, launcher);
}

/** A right password: the account, unless it still needs an address (the site login asks for it; a ban is said first). */
function after(before: User, user: User, link: repo.Link, launcher: boolean): Verdict {
  if (link.needs_email === 1 && !launcher && !activeBan(before))
    return { kind: 'refused', code: 'authme_email_required', message: TEXTS.emailRequired };
  return { kind: 'right', user };
}

/** A site account AuthMe has not been joined to: its own password decides; then it gets AuthMe's row, or is joined to the one with its name and password. */
async function unlinkedLogin(
  ctx: AppContext,
  cfg: AuthMeConfig,
  adb: AuthMeDatabase,
  user: User,
  password: string,
  caller: PasswordCaller,
) {
  if (user.password_hash === repo.NO_SITE_PASSWORD || !(await verifyPassword(user.password_hash, password, caller as Caller)))
    return { kind: 'wrong' } as const;
  const renewed = await renewSiteHash(ctx.db, user, password, caller);
  let row: AuthMeRow | null;
  try {
    row = await adb.find(user.username_lower);
  } catch (err) {
    await warn(ctx.db, 'unreachable', (err as Error).message);
    return { kind: 'right', user: renewed } as const;
  }
  if (row === null) {
    await writePassword(ctx, cfg, renewed, password, caller);
  } else {
    // The same name on both sides: the same player only when the same password opens both.
    const checked = await checkStored(readOrder(cfg), row.password, row.salt, password, user.username_lower, caller);
    if (checked.ok) {
      await repo.insertLink(ctx.db, {
        user_id: user.id,
        authme_name: user.username_lower,
        algorithm: checked.algorithm,
        hash: text(row.password)!,
        salt: text(row.salt),
        site_hash: renewed.password_hash,
        needs_email: 0,
        lock_hash: null,
        import_id: null,
        linked_at: Date.now(),
      });
    } else await warn(ctx.db, 'name_taken', shownName(user.username));
  }
  return { kind: 'right', user: renewed } as const;
}

/** A name only AuthMe knows: with AuthMe's password the account is made now, its name's case from `realname`. */
async function firstLogin(
  ctx: AppContext,
  cfg: AuthMeConfig,
  adb: AuthMeDatabase,
  login: string,
  password: string,
  caller: PasswordCaller,
  launcher: boolean,
): Promise<Verdict> {
  let row: AuthMeRow | null;
  try {
    row = await adb.find(login);
  } catch (err) {
    await warn(ctx.db, 'unreachable', (err as Error).message);
    return { kind: 'site' };
  }
  if (!row) return { kind: 'site' };
  const lower = row.name.toLowerCase();
  const checked = await checkStored(readOrder(cfg), row.password, row.salt, password, lower, caller);
  if (!checked.ok) {
    if (checked.problem)
      await warn(ctx.db, checked.problem === 'unsupported' ? 'unsupported' : 'broken_row', `${shownName(lower)}: ${checked.reason}`);
    return { kind: 'wrong' };
  }
  const name = displayName(row);
  const problem = nameProblem(name);
  if (problem) {
    await warn(ctx.db, 'name_refused', `${shownName(name)}: ${problem}`);
    return launcher ? { kind: 'wrong' } : { kind: 'refused', code: 'authme_name_refused', message: TEXTS.nameRefused(shownName(name)) };
  }
  const email = usableEmail(row.email);
  const emailFree = email !== null && !(await emailHeld(ctx.db, email));
  let siteHash: string;
  try {
    siteHash = await hashPassword(password, caller as Caller);
  } catch {
    siteHash = repo.NO_SITE_PASSWORD;
  }
  const now = Date.now();
  let user: User;
  try {
    user = await ctx.db.transaction().execute(async (trx) => {
      const created = await insertUser(trx, {
        username: name,
        username_lower: name.toLowerCase(),
        email: emailFree ? email : placeholderEmail(name.toLowerCase()),
        email_lower: emailFree ? email.toLowerCase() : placeholderEmail(name.toLowerCase()),
        password_hash: siteHash,
        is_admin: 0,
        balance: 0,
        // AuthMe's address is the player's own record there; one the site made up waits for a real one.
        email_verified_at: emailFree ? now : null,
        created_at: now,
        deleted_at: null,
        uuid: await profileUuidFor(trx, name),
      });
      await repo.insertLink(trx, {
        user_id: created.id,
        authme_name: lower,
        algorithm: checked.algorithm,
        hash: text(row.password)!,
        salt: text(row.salt),
        site_hash: siteHash,
        needs_email: emailFree ? 0 : 1,
        lock_hash: null,
        import_id: null,
        linked_at: now,
      });
      return created;
    });
  } catch (err) {
    // The name or address was taken on the site meanwhile: this login is over, the next finds the account.
    if (isUniqueViolation(err)) return { kind: 'wrong' };
    throw err;
  }
  if (!emailFree && !launcher) return { kind: 'refused', code: 'authme_email_required', message: TEXTS.emailRequired };
  return { kind: 'right', user };
}

export async function checkPassword(
  ctx: AppContext,
  login: { name: string; password: string; user: User | undefined; caller: PasswordCaller; launcher: boolean },
): Promise<Verdict> {
  const { user, password, caller, launcher } = login;
  if (user) {
    const found = await authMeOf(ctx);
    // Without AuthMe only an account made from it (no password of its own, or no address yet) needs
    // its link: a site that never used AuthMe pays no query per login.
    if (!found && user.password_hash !== repo.NO_SITE_PASSWORD && !user.email_lower.endsWith(`@${PLACEHOLDER_DOMAIN}`))
      return { kind: 'site' };
    const link = await repo.linkOf(ctx.db, user.id);
    if (link) return linkedLogin(ctx, found, user, link, password, caller, launcher);
    if (!found) return { kind: 'site' };
    return unlinkedLogin(ctx, found.cfg, found.adb, user, password, caller);
  }
  // AuthMe's /login takes names only; its names are at most 255 characters.
  if (login.name.includes('@') || login.name.length > 255 || login.name === '') return { kind: 'site' };
  const found = await authMeOf(ctx);
  if (!found) return { kind: 'site' };
  return firstLogin(ctx, found.cfg, found.adb, login.name, password, caller, launcher);
}

export async function nameTaken(ctx: AppContext, username: string): Promise<boolean> {
  const found = await authMeOf(ctx);
  if (!found) return false;
  try {
    return (await found.adb.find(username)) !== null;
  } catch (err) {
    await warn(ctx.db, 'unreachable', (err as Error).message);
    return false;
  }
}

// --- Writes -----------------------------------------------------------------------------------

/** Hooks for the write queue (authme.outbox.ts sets it: the service must not import it back). */
export const writes = { deliverFor: async (_ctx: AppContext, _userId: number): Promise<void> => {} };

/** The password in AuthMe's algorithm, queued and written now (later, while AuthMe is unreachable). */
async function writePassword(
  ctx: AppContext,
  cfg: AuthMeConfig,
  user: Pick<User, 'id' | 'password_hash'>,
  password: string,
  caller: PasswordCaller,
) {
  const problem = hashProblem(cfg);
  if (problem) return warn(ctx.db, 'write_failed', problem);
  const link = await repo.linkOf(ctx.db, user.id);
  const name = link?.authme_name ?? (await passwordStateOf(ctx.db, user.id))?.username_lower;
  if (!name) return;
  let made: Awaited<ReturnType<typeof hashForWrite>>;
  try {
    made = await hashForWrite(cfg, password, name, caller);
  } catch (err) {
    return warn(ctx.db, (err as { statusCode?: number }).statusCode === 429 ? 'busy' : 'write_failed', (err as Error).message);
  }
  await repo.enqueue(
    ctx.db,
    { user_id: user.id, op: 'password', hash: made.hash, salt: made.salt, algorithm: made.algorithm, site_hash: user.password_hash },
    Date.now(),
  );
  await writes.deliverFor(ctx, user.id);
}

export async function passwordSet(ctx: AppContext, user: Pick<User, 'id'>, password: string, caller: PasswordCaller): Promise<void> {
  try {
    const found = await authMeOf(ctx);
    if (!found) return;
    const current = await passwordStateOf(ctx.db, user.id);
    if (!current || current.deleted_at !== null) return;
    await writePassword(ctx, found.cfg, current, password, caller);
  } catch (err) {
    await warn(ctx.db, 'write_failed', (err as Error).message);
  }
}

export const linkedAccounts: LinkedAccounts = { checkPassword, nameTaken, passwordSet };

/** A ban set, changed or lifted: the lock of a linked account's game login follows (the queue decides by the switch). */
export async function banChangedReaction(trx: Db, userId: number): Promise<void> {
  if (await repo.linkOf(trx, userId))
    await repo.enqueue(trx, { user_id: userId, op: 'ban', hash: null, salt: null, algorithm: null, site_hash: null }, Date.now());
}
