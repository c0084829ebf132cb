import type {
  SocialLinksResponse,
  SocialPending,
  SocialProvider,
  SocialProvidersPublic,
  SocialRegisterBody,
  TelegramAuthBody,
} from '@kubik/contract';
import { SOCIAL_PROVIDER_TITLES, type ConsentKind } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, forbidden, HttpError, isUniqueViolation, notFound, unauthorized } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { sameSecret } from '../../lib/same-secret.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { enqueueMail, MAIL_JOB } from '../mail/mail.outbox.ts';
import { siteName } from '../site/site.settings.ts';
import { assertNotBanned } from '../users/ban-status.ts';
import { rememberDevice } from '../users/login-throttle.ts';
import { createSession } from '../users/users.logins.ts';
import { linkedAccounts, newDeviceLogin, secondFactor, secondFactorError, userRegistered } from '../users/users.ports.ts';
import { recordConsents, registerConsentsNeeded, requireConsents } from '../site/legal.service.ts';
import * as users from '../users/users.repo.ts';
import type { User } from '../users/users.repo.ts';
import { socialConfirmLetter, socialExistsLetter } from './social.mail.ts';
import {
  discordAccount,
  discordAuthorizeUrl,
  pkcePair,
  ProviderRefused,
  telegramAccount,
  telegramBotId,
  telegramCheck,
  vkAccount,
  vkAuthorizeUrl,
  type ProviderAccount,
} from './social.providers.ts';
import * as repo from './social.repo.ts';
import { enabledProviders, redirectUri, socialKeys } from './social.settings.ts';

export const FLOW_TTL_MS = 10 * 60_000;
export const TICKET_TTL_MS = 15 * 60_000;
export const REGISTRATION_TTL_MS = 24 * 3_600_000;
export const MAX_CODE_TRIES = 5;
/** Social logins (starts, callbacks, Telegram data) one address may make in a rate-limit window. */
export const SOCIAL_PER_IP = 30;

/**
 * The password of an account made through a provider: no argon2 hash, so no password matches it
 * (verify fails on its format); a password reset by e-mail sets a real one.
 */
export const NO_PASSWORD = '!social';
export const hasPassword = (user: Pick<User, 'password_hash'>) => !user.password_hash.startsWith('!');

export const TEXTS = {
  unavailable: 'Вход через этот сервис не настроен',
  badSignature: 'Данные Telegram не прошли проверку подписи. Попробуйте войти ещё раз.',
  expired: 'Данные входа через Telegram устарели. Войдите ещё раз.',
  stateInvalid: 'Вход не удался: ссылка устарела, уже использована или открыта в другом браузере. Начните вход заново.',
  providerError: 'Сервис входа не подтвердил вход. Попробуйте ещё раз.',
  alreadyLinked: 'Этот аккаунт соцсети уже привязан к другому игроку',
  providerTaken: 'К вашему аккаунту уже привязан другой аккаунт этого сервиса. Сначала отвяжите его.',
  notLinked: 'Этот сервис не привязан к вашему аккаунту',
  lastLogin: 'Нельзя отвязать последний способ входа: сначала задайте пароль (через «Забыли пароль?») или привяжите другой сервис.',
  pendingInvalid: 'Вход через соцсеть не найден или устарел. Начните вход заново.',
  notConfirmed: 'Почта не подтверждена',
  signedIn: 'Вы вошли',
  twoFactor: 'Введите код из приложения-аутентификатора',
  register: 'Аккаунт ещё не создан: придумайте имя в игре и укажите почту',
  registerSent: 'Мы отправили письмо на указанную почту. Откройте ссылку из письма, чтобы завершить регистрацию.',
  linked: 'Аккаунт привязан',
  unlinked: 'Аккаунт отвязан',
} as const;

export const errors = {
  unavailable: () => notFound(TEXTS.unavailable, { code: 'social_unavailable' }),
  stateInvalid: () => badRequest(TEXTS.stateInvalid, { code: 'social_state_invalid' }),
  providerError: () => new HttpError(502, TEXTS.providerError, { code: 'social_provider_error' }),
  pendingInvalid: () => badRequest(TEXTS.pendingInvalid, { code: 'social_pending_invalid' }),
};

export interface Meta {
  ip: string;
  userAgent?: string;
  deviceToken?: string;
}

/** What a finished provider check led to. */
export type Outcome =
  | { status: 'signed_in'; token: string; deviceToken: string }
  | { status: 'two_factor' | 'register'; ticket: string }
  | { status: 'linked' };

async function limit(ctx: AppContext, ip: string): Promise<void> {
  await ctx.limiter.hit(`social:ip:${addressKey(ip)}`, SOCIAL_PER_IP);
}

export async function publicProviders(ctx: AppContext): Promise<SocialProvidersPublic> {
  const keys = await socialKeys(ctx);
  return {
    providers: await enabledProviders(ctx),
    telegram: keys.telegram
      ? { bot_id: telegramBotId(keys.telegram.botToken), bot_name: keys.telegram.botName, auth_url: `${keys.telegram.baseUrl}/auth` }
      : null,
  };
}

// --- Redirect flows (VK ID, Discord) ---------------------------------------------------------

/**
 * Starts a redirect login (or, with a user, a link): a new state and PKCE pair, stored with the
 * hash of a new browser cookie; the provider's authorize address to send the browser to.
 */
export async function startRedirect(
  ctx: AppContext,
  provider: 'vk' | 'discord',
  mode: 'login' | 'link',
  user: User | null,
  ip: string,
): Promise<{ url: string; browser: string }> {
  await limit(ctx, ip);
  const keys = await socialKeys(ctx);
  const state = newToken();
  const browser = newToken();
  const { verifier, challenge } = pkcePair();
  const now = Date.now();
  const uri = redirectUri(ctx, provider);
  let url: string;
  if (provider === 'vk') {
    if (!keys.vk) throw errors.unavailable();
    url = vkAuthorizeUrl(keys.vk, { redirectUri: uri, state, challenge });
  } else {
    if (!keys.discord) throw errors.unavailable();
    url = discordAuthorizeUrl(keys.discord, { redirectUri: uri, state, challenge });
  }
  await repo.insertFlow(
    ctx.db,
    {
      state_hash: hashToken(state),
      browser_hash: hashToken(browser),
      provider,
      mode,
      user_id: mode === 'link' ? user!.id : null,
      code_verifier: verifier,
      expires_at: now + FLOW_TTL_MS,
    },
    now,
  );
  return { url, browser };
}

export interface CallbackQuery {
  code?: string;
  state?: string;
  device_id?: string;
  error?: string;
}

/**
 * The provider sent the browser back. Nothing is asked of the provider before the state is
 * found, unexpired, started by this very browser (its cookie) and used up here.
 */
export async function finishRedirect(
  ctx: AppContext,
  provider: 'vk' | 'discord',
  query: CallbackQuery,
  browser: string | undefined,
  meta: Meta,
  /** Set as soon as the flow is known, so an error later can be shown where the flow began. */
  seen: { mode: 'login' | 'link' } = { mode: 'login' },
): Promise<{ mode: 'login' | 'link'; outcome: Outcome }> {
  await limit(ctx, meta.ip);
  const { state, code } = query;
  if (!state || !browser || state.length > 200 || browser.length > 200) throw errors.stateInvalid();
  const flow = await repo.findFlow(ctx.db, hashToken(state));
  if (!flow || flow.provider !== provider || flow.expires_at <= Date.now() || !sameSecret(hashToken(browser), flow.browser_hash))
    throw errors.stateInvalid();
  if (!(await repo.takeFlow(ctx.db, flow.state_hash))) throw errors.stateInvalid();
  const mode = flow.mode === 'link' ? 'link' : 'login';
  seen.mode = mode;
  if (query.error || !code || code.length > 2048) throw errors.providerError();
  const keys = await socialKeys(ctx);
  const uri = redirectUri(ctx, provider);
  let account: ProviderAccount;
  try {
    if (provider === 'vk') {
      if (!keys.vk) throw errors.unavailable();
      const deviceId = query.device_id;
      if (!deviceId || deviceId.length > 512) throw errors.providerError();
      account = await vkAccount(keys.vk, { code, deviceId, verifier: flow.code_verifier, redirectUri: uri, state });
    } else {
      if (!keys.discord) throw errors.unavailable();
      account = await discordAccount(keys.discord, { code, verifier: flow.code_verifier, redirectUri: uri });
    }
  } catch (err) {
    if (err instanceof ProviderRefused) throw errors.providerError();
    throw err;
  }
  if (mode === 'link') {
    const user = await users.findActiveUser(ctx.db, ctx.dbKind, flow.user_id ?? 0);
    if (!user) throw errors.stateInvalid();
    await link(ctx, user, provider, account);
    return { mode, outcome: { status: 'linked' } };
  }
  return { mode, outcome: await loginWith(ctx, provider, account, meta) };
}

// --- Telegram --------------------------------------------------------------------------------

async function verifiedTelegram(ctx: AppContext, body: TelegramAuthBody, ip: string): Promise<ProviderAccount> {
  await limit(ctx, ip);
  const keys = await socialKeys(ctx);
  if (!keys.telegram) throw errors.unavailable();
  const check = telegramCheck(keys.telegram.botToken, body, Math.floor(Date.now() / 1000));
  if (check === 'bad') throw unauthorized(TEXTS.badSignature, { code: 'social_bad_signature' });
  if (check === 'expired') throw unauthorized(TEXTS.expired, { code: 'social_expired' });
  return telegramAccount(body);
}

export async function telegramLogin(ctx: AppContext, body: TelegramAuthBody, meta: Meta): Promise<Outcome> {
  const account = await verifiedTelegram(ctx, body, meta.ip);
  return loginWith(ctx, 'telegram', account, meta);
}

export async function telegramLink(ctx: AppContext, user: User, body: TelegramAuthBody, ip: string): Promise<void> {
  const account = await verifiedTelegram(ctx, body, ip);
  await link(ctx, user, 'telegram', account);
}

// --- Logging in ------------------------------------------------------------------------------

async function newTicket(
  ctx: AppContext,
  kind: 'two_factor' | 'register',
  provider: SocialProvider,
  account: ProviderAccount,
  userId: number | null,
): Promise<string> {
  const ticket = newToken();
  const now = Date.now();
  await repo.insertTicket(
    ctx.db,
    {
      ticket_hash: hashToken(ticket),
      kind,
      provider,
      provider_user_id: account.id,
      display_name: account.displayName.slice(0, 255),
      user_id: userId,
      attempts: 0,
      username: null,
      email: null,
      confirm_hash: null,
      expires_at: now + TICKET_TTL_MS,
    },
    now,
  );
  return ticket;
}

/** The provider vouched for the account: a session, or a ticket for the second factor or the registration. */
async function loginWith(ctx: AppContext, provider: SocialProvider, account: ProviderAccount, meta: Meta): Promise<Outcome> {
  const user = await repo.linkedUser(ctx.db, provider, account.id);
  if (!user) return { status: 'register', ticket: await newTicket(ctx, 'register', provider, account, null) };
  assertNotBanned(user);
  if (user.email_verified_at === null) throw forbidden(TEXTS.notConfirmed, { code: 'email_not_confirmed' });
  // Two-factor login applies as to a password login (modules/security answers).
  if (await secondFactor.ask().isOn(ctx.db, user.id))
    return { status: 'two_factor', ticket: await newTicket(ctx, 'two_factor', provider, account, user.id) };
  return { status: 'signed_in', ...(await openSession(ctx, user, meta)) };
}

/** The one way a session is made (users.logins), with the known-device bookkeeping a password login does. */
async function openSession(ctx: AppContext, user: User, meta: Meta): Promise<{ token: string; deviceToken: string }> {
  const token = await createSession(ctx.db, user.id, ctx.config.sessionTtlMs, meta);
  const deviceToken = meta.deviceToken && meta.deviceToken.length <= 200 ? meta.deviceToken : newToken();
  if (await rememberDevice(ctx.db, user.id, deviceToken, meta)) await newDeviceLogin.run(ctx, user, deviceToken, meta);
  return { token, deviceToken };
}

export async function pending(ctx: AppContext, ticket: string | undefined): Promise<SocialPending> {
  const row = ticket && ticket.length <= 200 ? await repo.findTicket(ctx.db, hashToken(ticket), Date.now()) : undefined;
  if (!row || row.confirm_hash !== null) throw errors.pendingInvalid();
  return {
    kind: row.kind === 'two_factor' ? 'two_factor' : 'register',
    provider: row.provider as SocialProvider,
    display_name: row.display_name,
    suggested_username: suggestName(row.display_name),
  };
}

function suggestName(displayName: string): string {
  const base = displayName
    .replace(/^@/, '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 16);
  return base.length >= 3 ? base : '';
}

/** The second factor of a social login waiting in this browser. */
export async function complete(
  ctx: AppContext,
  ticket: string | undefined,
  code: string,
  meta: Meta,
): Promise<{ token: string; deviceToken: string }> {
  await limit(ctx, meta.ip);
  const hash = ticket && ticket.length <= 200 ? hashToken(ticket) : null;
  const row = hash ? await repo.findTicket(ctx.db, hash, Date.now()) : undefined;
  if (!hash || !row || row.kind !== 'two_factor' || row.user_id === null) throw errors.pendingInvalid();
  const second = await secondFactor.ask().check(ctx, row.user_id, code);
  if (second === 'missing' || second === 'wrong') {
    if (!(await repo.countAttempt(ctx.db, hash, MAX_CODE_TRIES - 1))) throw errors.pendingInvalid();
    throw secondFactorError(second);
  }
  if (!(await repo.deleteTicket(ctx.db, hash))) throw errors.pendingInvalid();
  const user = await users.findActiveUser(ctx.db, ctx.dbKind, row.user_id);
  // Unlinked meanwhile: the provider no longer speaks for this account.
  const still = await repo.linkOwner(ctx.db, row.provider, row.provider_user_id);
  if (!user || still?.user_id !== user.id) throw errors.pendingInvalid();
  assertNotBanned(user);
  return openSession(ctx, user, meta);
}

// --- Registering -----------------------------------------------------------------------------

/**
 * The name and address for an account made through a provider. A taken name is said (names are
 * public: player pages); the address is not: a letter goes to it either way, with the link that
 * creates the account, or, when it has an account, with how to link the provider to it.
 */
export async function register(
  ctx: AppContext,
  ticket: string | undefined,
  body: SocialRegisterBody,
  ip: string,
  userAgent: string | null = null,
): Promise<string> {
  await ctx.limiter.hit(`register:ip:${addressKey(ip)}`, ctx.config.rateLimits.registerPerIp);
  // The same separate consents as a registration with a password, kept until the account is made.
  requireConsents(await registerConsentsNeeded(ctx.db), body.consents);
  const hash = ticket && ticket.length <= 200 ? hashToken(ticket) : null;
  const row = hash ? await repo.findTicket(ctx.db, hash, Date.now()) : undefined;
  if (!hash || !row || row.kind !== 'register') throw errors.pendingInvalid();
  const byName = await users.findUserByLogin(ctx.db, body.username);
  if (byName && byName.username.toLowerCase() === body.username.toLowerCase())
    throw conflict('Username already exists', { code: 'username_exists', field: 'username' });
  // A player of the game server who never came to the site has this name there (AuthMe).
  if (await linkedAccounts.ask().nameTaken(ctx, body.username))
    throw conflict('Username already exists', { code: 'username_exists', field: 'username' });
  const emailTaken = (await users.findUserByEmail(ctx.db, body.email)) !== undefined;
  const confirm = newToken();
  const name = await siteName(ctx);
  const provider = row.provider as SocialProvider;
  await ctx.db.transaction().execute(async (trx) => {
    if (emailTaken) {
      await enqueueMail(trx, socialExistsLetter(name, body.email, provider, `${ctx.config.publicUrl}/login`));
      await repo.deleteTicket(trx, hash);
    } else {
      await repo.setRegistration(trx, hash, {
        username: body.username,
        email: body.email,
        confirm_hash: hashToken(confirm),
        expires_at: Date.now() + REGISTRATION_TTL_MS,
        consents: body.consents?.length ? JSON.stringify({ kinds: body.consents, ip, user_agent: userAgent, at: Date.now() }) : null,
      });
      const link = `${ctx.config.publicUrl}/api/auth/social/confirm/${confirm}`;
      await enqueueMail(trx, socialConfirmLetter(name, body.email, body.username, provider, link));
    }
  });
  ctx.jobs.kick(MAIL_JOB);
  return TEXTS.registerSent;
}

/**
 * The letter's link: makes the account (confirmed: the link proves the address), links the
 * provider and signs in. Null when the link is unknown, used or expired, or the name or address
 * was taken meanwhile.
 */
export async function confirmRegistration(
  ctx: AppContext,
  token: string,
  meta: Meta,
  cookies: Record<string, string | undefined>,
): Promise<{ token: string; deviceToken: string } | null> {
  await limit(ctx, meta.ip);
  if (token.length > 200) return null;
  const now = Date.now();
  let user: User | undefined;
  try {
    user = await ctx.db.transaction().execute(async (trx) => {
      const row = await repo.takeRegistration(trx, hashToken(token), now);
      if (!row?.username || !row.email) return undefined;
      if (await users.nameOrEmailTaken(trx, row.username, row.email)) return undefined;
      const created = await repo.insertUser(trx, {
        username: row.username,
        username_lower: row.username.toLowerCase(),
        email: row.email,
        email_lower: row.email.toLowerCase(),
        password_hash: NO_PASSWORD,
        is_admin: 0,
        balance: 0,
        email_verified_at: now,
        created_at: now,
        deleted_at: null,
        uuid: await users.profileUuidFor(trx, row.username),
      });
      if (
        !(await repo.insertLink(trx, {
          user_id: created.id,
          provider: row.provider,
          provider_user_id: row.provider_user_id,
          display_name: row.display_name,
          created_at: now,
        }))
      )
        throw new LinkTaken();
      const given = row.consents
        ? (JSON.parse(row.consents) as { kinds: ConsentKind[]; ip: string; user_agent: string | null; at: number })
        : null;
      if (given)
        await recordConsents(trx, created.id, given.kinds, { ip: given.ip, userAgent: given.user_agent, source: 'social', at: given.at });
      await userRegistered.run(trx, created.id, { username: row.username, ip: meta.ip, cookies });
      return created;
    });
  } catch (err) {
    // The provider account was linked, or the name or address taken, by someone else meanwhile.
    if (err instanceof LinkTaken || isUniqueViolation(err)) return null;
    throw err;
  }
  if (!user) return null;
  return openSession(ctx, user, meta);
}

class LinkTaken extends Error {}

// --- Linking ---------------------------------------------------------------------------------

/** Links the provider account to the player; a repeat of the same link is fine, anyone else's is refused. */
async function link(ctx: AppContext, user: User, provider: SocialProvider, account: ProviderAccount): Promise<void> {
  const inserted = await repo.insertLink(ctx.db, {
    user_id: user.id,
    provider,
    provider_user_id: account.id,
    display_name: account.displayName.slice(0, 255),
    created_at: Date.now(),
  });
  if (inserted) return;
  const owner = await repo.linkOwner(ctx.db, provider, account.id);
  if (owner?.user_id === user.id) return;
  if (owner) throw conflict(TEXTS.alreadyLinked, { code: 'social_already_linked' });
  throw conflict(TEXTS.providerTaken, { code: 'social_provider_taken' });
}

export async function links(ctx: AppContext, user: User): Promise<SocialLinksResponse> {
  const rows = await repo.linksOf(ctx.db, user.id);
  const enabled = new Set(await enabledProviders(ctx));
  return {
    has_password: hasPassword(user),
    providers: (['vk', 'telegram', 'discord'] as const)
      .map((provider) => {
        const row = rows.find((r) => r.provider === provider);
        return {
          provider,
          available: enabled.has(provider),
          linked: row ? { display_name: row.display_name, linked_at: Number(row.created_at) } : null,
        };
      })
      .filter((p) => p.available || p.linked !== null),
  };
}

/** Unlinks, unless that leaves the account without a way in (no password and no other provider). */
export async function unlink(ctx: AppContext, user: User, provider: SocialProvider): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const me = await repo.lockAccount(trx, ctx.dbKind, user.id);
    if (!me) throw errors.pendingInvalid();
    const rows = await repo.linksOf(trx, user.id);
    if (!rows.some((r) => r.provider === provider)) throw notFound(TEXTS.notLinked, { code: 'social_not_linked' });
    if (!hasPassword(me) && rows.length <= 1) throw conflict(TEXTS.lastLogin, { code: 'social_last_login' });
    await repo.deleteLink(trx, user.id, provider);
  });
}

export const titleOf = (p: SocialProvider) => SOCIAL_PROVIDER_TITLES[p];
