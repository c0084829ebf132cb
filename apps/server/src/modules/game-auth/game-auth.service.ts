import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { HttpError } from '../../lib/errors.ts';
import { burnPasswordCheck, failedLoginFloor, renewedHash, stranger, verifyPassword } from '../../front-door/passwords.ts';
import { hashToken } from '../../lib/tokens.ts';
import { signProperty, texturesValue, unhyphenated } from '../../lib/yggdrasil/textures.ts';
import { activeBan, banText } from '../users/ban-status.ts';
import {
  clearLoginFailures,
  countNetworkFailure,
  isKnownDevice,
  networkRefusedFor,
  rememberDevice,
  reserveLoginTry,
} from '../users/login-throttle.ts';
import { capeTextures, linkedAccounts, secondFactor, skinTextures } from '../users/users.ports.ts';
import { findUserByLogin, replacePasswordHash, type User } from '../users/users.repo.ts';
import { loadSigningKey, type SigningKey } from './game-auth.keys.ts';
import * as repo from './game-auth.repo.ts';
import { GameTokenKeys } from './game-tokens.ts';
import { revokeProfileKeys } from './profile-keys.repo.ts';
import type { GameTokenKind } from './game-auth.tables.ts';

/** A game login stays valid this long; launchers check it before every start and refresh it. */
export const TOKEN_VALID_MS = 7 * 86_400_000;
/** After that it can still be refreshed (the spec's "temporarily invalid") for this long from issue. */
export const TOKEN_REFRESH_MS = 30 * 86_400_000;
/** Logins kept per player and launcher kind; a new one ends the oldest. */
export const TOKENS_PER_USER = 10;
/** A join is checked by the game server within seconds; the record is gone after this. */
export const JOIN_TTL_MS = 30_000;
/**
 * One password check per account per this interval: the Yggdrasil authenticate is a password
 * oracle, and its specification asks for a per-account limit (the reference server allows one
 * check per 300 ms, Blessing Skin one per second). A second try within it is refused like a
 * wrong password without looking at the password.
 */
export const LOGIN_INTERVAL_MS = 1000;

/** Ends every game login of a player: whenever the users core ends their logins (endLogins → loginsEnded). */
export async function revokeGameTokens(trx: Db, userId: number): Promise<void> {
  await repo.deleteTokensOf(trx, userId);
  await revokeProfileKeys(trx, userId);
}

export const GAME_TEXTS = {
  notConfirmed: 'Почта не подтверждена: откройте ссылку из письма, которое пришло после регистрации, и войдите снова.',
} as const;

/** Why an account with the right password still may not play; null when it may. */
export type Refusal = 'unconfirmed' | 'banned';

export function accountRefusal(user: User, now = Date.now()): Refusal | null {
  if (activeBan(user, now)) return 'banned';
  if (user.email_verified_at === null) return 'unconfirmed';
  return null;
}

/** What the launcher shows for a refusal: the ban's reason and end (users/ban-status.ts), or the unconfirmed address. */
export function refusalText(user: User, now = Date.now()): string {
  const ban = activeBan(user, now);
  return ban ? banText(ban) : GAME_TEXTS.notConfirmed;
}

/** 'two_factor': the password was right but the account needs a code too; 'bad_code': the code was wrong or used before. */
export type CredentialsResult =
  | { ok: true; user: User }
  | { ok: false; reason: 'unknown' | 'wrong' | 'two_factor' | 'bad_code' }
  /** Too many tries on this account (or from this launcher) lately: not a verdict on the password. */
  | { ok: false; reason: 'throttled'; retryInMs: number };

/** Who is logging in, beyond the name and password. */
export interface LauncherMeta {
  /**
   * The launcher's own id (Yggdrasil's clientToken): one that logged in to this account before is
   * known, like a browser's device cookie, and neither waits behind strangers nor for the delay
   * their wrong passwords put on the account.
   */
  clientToken?: string | null;
  ip?: string;
}

/** The known_devices entry of a launcher: its clientToken, apart from browsers' cookies. */
const launcherDevice = (clientToken: string) => `launcher:${clientToken}`;

export interface PlayerTextures {
  skin: { hash: string; slim: boolean } | null;
  cape: { hash: string } | null;
}

export interface SignedProperty {
  name: 'textures';
  value: string;
  signature: string;
}

/** A texture's address on this site; the last segment is the hash of the pixels (the game's cache key). */
export const textureUrl = (ctx: AppContext, hash: string) => `${ctx.config.publicUrl}/textures/${hash}`;

export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

async function insertNewToken(db: Db, kind: GameTokenKind, user: User, clientToken: string | null, now: number) {
  const keys = await GameTokenKeys.load(db);
  const accessToken = keys.issue(kind);
  const refreshToken = kind === 'gravit' ? keys.issue('gravit-refresh') : null;
  const expiresAt = now + TOKEN_VALID_MS;
  await repo.insertToken(
    db,
    {
      access_hash: hashToken(accessToken),
      refresh_hash: refreshToken ? hashToken(refreshToken) : null,
      signed: 1,
      kind,
      user_id: user.id,
      client_token: clientToken,
      profile_name: user.username,
      created_at: now,
      expires_at: expiresAt,
      refresh_until: now + TOKEN_REFRESH_MS,
    },
    TOKENS_PER_USER,
  );
  return { accessToken, refreshToken, expiresAt };
}

/**
 * A launcher login refused for its rate, not for its password (too many tries on the account or
 * from the address, or too many password checks waiting): how long to wait, in Russian.
 */
export function tooManyTriesText(retryInMs: number): string {
  const s = Math.max(1, Math.ceil(retryInMs / 1000));
  return `Слишком много попыток входа. Повторите через ${s < 60 ? `${s} с.` : `${Math.ceil(s / 60)} мин.`}`;
}

/** Shared by the Yggdrasil API and GravitLauncher's HTTP auth. */
export function createGameAuth(ctx: AppContext) {
  const lastCheck = new Map<string, number>();
  let signingKey: Promise<SigningKey> | null = null;
  const signed = new Map<string, { value: string; signature: string }>();

  function throttled(key: string, now: number): boolean {
    if (!ctx.config.rateLimits.enabled) return false;
    const last = lastCheck.get(key);
    // A refused try does not restart the interval, so steady guessing cannot lock the owner out.
    if (last !== undefined && now - last < LOGIN_INTERVAL_MS) return true;
    if (lastCheck.size > 100_000) lastCheck.clear();
    lastCheck.set(key, now);
    return false;
  }

  async function credentialsOf(
    login: string,
    password: string,
    now: number,
    totpCode: string | null | undefined,
    meta: LauncherMeta,
  ): Promise<CredentialsResult> {
    const user = login.length <= 254 ? await findUserByLogin(ctx.db, login) : undefined;
    const clientToken = meta.clientToken && meta.clientToken.length <= 190 ? meta.clientToken : null;
    const known = user !== undefined && clientToken !== null && (await isKnownDevice(ctx.db, user.id, launcherDevice(clientToken)));
    const limits = ctx.config.rateLimits;
    if (known) {
      // Its own window, like a known browser's: a stranger's guessing does not lock it out.
      if (await limited(() => ctx.limiter.hit(`game:launcher:${user.id}:${clientToken}`, limits.loginPerAccount * 2, now)))
        return { ok: false, reason: 'throttled', retryInMs: 60_000 };
    } else {
      if (throttled(user ? `u:${user.id}` : `l:${login.toLowerCase()}`, now))
        return { ok: false, reason: 'throttled', retryInMs: LOGIN_INTERVAL_MS };
      // A network refused for its strangers' failed logins (users/login-throttle.ts): no hash.
      const refusedFor = networkRefusedFor(ctx.limiter, meta.ip ?? '', now);
      if (refusedFor > 0) return { ok: false, reason: 'throttled', retryInMs: refusedFor };
      if (!user) {
        // A player only the game server's AuthMe knows: its password makes the account now.
        const first = await linkedAccounts
          .ask()
          .checkPassword(ctx, { name: login, password, user, caller: stranger(meta.ip ?? ''), launcher: true });
        if (first.kind === 'right') return { ok: true, user: first.user };
        // No hash for a name nobody has: the same admission and about the same wait.
        if (first.kind !== 'wrong') await burnPasswordCheck(stranger(meta.ip ?? ''));
        await countNetworkFailure(ctx.limiter, meta.ip ?? '', limits.loginFailuresPerNetwork);
        return { ok: false, reason: first.kind === 'wrong' ? 'wrong' : 'unknown' };
      }
      // The site login's per-account count (by user id) covers launchers too.
      if (limits.enabled) {
        const reserved = await reserveLoginTry(ctx.db, user.id, limits.loginPerAccount, now);
        if (!reserved.ok) return { ok: false, reason: 'throttled', retryInMs: reserved.retryInMs };
      }
    }
    if (!user) return { ok: false, reason: 'unknown' };
    // With two-factor login on, the code comes after the password (`пароль:123456`) or apart (Gravit's totpCode).
    const twoFactor = secondFactor.ask();
    const given = await twoFactor.launcherCredentials(ctx.db, user.id, password, totpCode);
    const caller = known ? 'known' : stranger(meta.ip ?? '');
    // A linked game account (AuthMe) may have changed its password in the game: it is asked first.
    const verdict = await linkedAccounts.ask().checkPassword(ctx, { name: login, password: given.password, user, caller, launcher: true });
    if (verdict.kind === 'site' ? !(await verifyPassword(user.password_hash, given.password, caller)) : verdict.kind !== 'right') {
      if (!known) await countNetworkFailure(ctx.limiter, meta.ip ?? '', limits.loginFailuresPerNetwork);
      return { ok: false, reason: 'wrong' };
    }
    if (verdict.kind !== 'right') await replacePasswordHash(ctx.db, user, await renewedHash(user.password_hash, given.password));
    const account = verdict.kind === 'right' ? verdict.user : user;
    if (given.twoFactor) {
      // Like a wrong password, a missing or wrong code leaves the try counted.
      const second = await twoFactor.check(ctx, account.id, given.code, now);
      if (second === 'missing') return { ok: false, reason: 'two_factor' };
      if (second === 'wrong') return { ok: false, reason: 'bad_code' };
    }
    await clearLoginFailures(ctx.db, account.id);
    // Known only once the account is let in: a banned or unconfirmed account's launcher is refused and remembered for nothing.
    if (clientToken !== null && !known && !accountRefusal(account, now))
      await rememberDevice(ctx.db, account.id, launcherDevice(clientToken), { ip: meta.ip }, now);
    return { ok: true, user: account };
  }

  return {
    /**
     * The account behind a login (name or e-mail) and password. Refusals are not told apart
     * to the caller's caller unless it chooses to; an unknown name, a wrong password and a wrong
     * code are answered after the same floor (front-door/passwords.ts), a refusal for the rate at once.
     */
    async checkCredentials(
      login: string,
      password: string,
      now = Date.now(),
      totpCode?: string | null,
      meta: LauncherMeta = {},
    ): Promise<CredentialsResult> {
      const started = performance.now();
      const result = await credentialsOf(login, password, now, totpCode, meta);
      if (!result.ok && result.reason !== 'throttled' && result.reason !== 'two_factor')
        await failedLoginFloor(started, ctx.config.loginFailureDelayMs);
      return result;
    },

    /** Issues a game login; returns the access token (and Gravit's refresh token). */
    issueToken: (kind: GameTokenKind, user: User, clientToken: string | null, now = Date.now()) =>
      insertNewToken(ctx.db, kind, user, clientToken, now),

    /**
     * Replaces a token with a new one in one transaction; null when the old one was used up
     * meanwhile (two refreshes of one token: only the first gets a new one).
     */
    async replaceToken(old: repo.GameToken, user: User, now = Date.now()) {
      return ctx.db.transaction().execute(async (trx) => {
        if ((await repo.deleteToken(trx, old.access_hash)) !== 1) return null;
        return insertNewToken(trx, old.kind, user, old.client_token, now);
      });
    },

    /** Valid: not expired, issued under the profile's current name (a rename makes it refresh-only). */
    isValid(token: repo.GameToken, user: User, now = Date.now()): boolean {
      return now < token.expires_at && token.profile_name === user.username && accountRefusal(user) === null;
    },

    isRefreshable(token: repo.GameToken, user: User, now = Date.now()): boolean {
      return now < token.refresh_until && accountRefusal(user) === null;
    },

    async textures(user: User, now = Date.now()): Promise<PlayerTextures> {
      const [skin, cape] = await Promise.all([
        skinTextures.ask().worn(ctx.db, user.id, now),
        capeTextures.ask().worn(ctx.db, user.id, now),
      ]);
      return { skin, cape };
    },

    signingKey(): Promise<SigningKey> {
      signingKey ??= loadSigningKey(ctx.db).catch((err: unknown) => {
        signingKey = null;
        throw err;
      });
      return signingKey;
    },

    /**
     * The `textures` property of a profile. Signing with a 4096-bit key costs milliseconds, and
     * anyone may ask for a signed profile, so a property is signed once per look (name, skin,
     * model, cape) and reused; its timestamp is then the first signing's, which the game accepts.
     */
    async texturesProperty(user: User, sign: boolean): Promise<{ name: 'textures'; value: string; signature?: string }> {
      const t = await this.textures(user);
      const uuid = repo.profileUuid(user);
      const look = JSON.stringify([uuid, user.username, t.skin?.hash, t.skin?.slim, t.cape?.hash]);
      const cached = signed.get(look);
      if (cached) return sign ? { name: 'textures', ...cached } : { name: 'textures', value: cached.value };
      const value = texturesValue({
        profileId: uuid,
        profileName: user.username,
        skin: t.skin ? { url: textureUrl(ctx, t.skin.hash), slim: t.skin.slim } : null,
        cape: t.cape ? { url: textureUrl(ctx, t.cape.hash) } : null,
        timestamp: Date.now(),
      });
      if (!sign) return { name: 'textures', value };
      const signature = signProperty(value, (await this.signingKey()).privateKey);
      if (signed.size >= 10_000) signed.delete(signed.keys().next().value!);
      signed.set(look, { value, signature });
      return { name: 'textures', value, signature };
    },

    profileId: (user: User) => unhyphenated(repo.profileUuid(user)),
  };
}

export type GameAuth = ReturnType<typeof createGameAuth>;

/** A throttled limiter hit as a boolean (the game protocols answer in their own shapes). */
export async function limited(fn: () => Promise<void>): Promise<boolean> {
  try {
    await fn();
    return false;
  } catch (err) {
    if (err instanceof HttpError && err.statusCode === 429) return true;
    throw err;
  }
}
