import type { PlayerDelivery, SetupServer, UserCard } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { unauthorized, type HttpError } from '../../lib/errors.ts';
import type { User } from './users.repo.ts';

/**
 * Where features meet (docs/decisions/220-server-core-and-ports.md). A feature never
 * imports another one: where it must ask another feature something about a user, or react to
 * what happened to a user, the users core names the question (a Port) or the event (a Hook)
 * here, and the answering feature provides it when its routes are registered (modules/index.ts).
 * Providers are plain functions of their arguments, so one registry per process serves every
 * app a test builds.
 */

/** A question one feature answers for the others. Without a provider ask() gives the fallback, or throws when there is none. */
export class Port<T> {
  private answer: T | undefined;

  constructor(
    private readonly question: string,
    private readonly fallback?: T,
  ) {}

  provide(answer: T): void {
    this.answer = answer;
  }

  ask(): T {
    const answer = this.answer ?? this.fallback;
    if (answer === undefined) throw new Error(`Nobody answers "${this.question}": is the module that does in modules/index.ts?`);
    return answer;
  }
}

/** Something that happened to a user; every feature that registered reacts, in the caller's transaction when it passes one. */
export class Hook<A extends unknown[]> {
  private readonly reactions = new Map<string, (...args: A) => Promise<void>>();

  /** `by` names the reacting module: registering again (another app in this process) replaces its reaction. */
  on(by: string, react: (...args: A) => Promise<void>): void {
    this.reactions.set(by, react);
  }

  async run(...args: A): Promise<void> {
    for (const react of this.reactions.values()) await react(...args);
  }
}

// --- Logins ---------------------------------------------------------------------------------

/** endLogins() ended a user's site sessions: logins kept elsewhere end too (game-auth: the launchers' tokens). */
export const loginsEnded = new Hook<[trx: Db, userId: number]>();

/** A password login from a browser the account never used before (accounts): security writes the new-device letter. */
export const newDeviceLogin = new Hook<
  [ctx: AppContext, user: Pick<User, 'id' | 'email' | 'username'>, deviceToken: string, meta: { ip: string; userAgent?: string }]
>();

/** 'off': the account has no second factor; 'missing': one is needed and none came; 'wrong': it did not match (or was used before). */
export type SecondFactor = 'off' | 'ok' | 'missing' | 'wrong';

export interface SecondFactorCheck {
  /** The second step of a login, after the password was found right; a code that passes is used up. */
  check(ctx: AppContext, userId: number, code: string | null | undefined, now?: number): Promise<SecondFactor>;
  /** A launcher's one password field (`пароль:123456`) split into the password and the code, when the account needs one. */
  launcherCredentials(
    db: Db,
    userId: number,
    password: string,
    code: string | null | undefined,
  ): Promise<{ password: string; code: string | null; twoFactor: boolean }>;
  isOn(db: Db, userId: number): Promise<boolean>;
}

/**
 * Two-factor login: answered by security (two-factor.service.ts), asked by every login (site,
 * launchers) and by account deletion. No fallback: a login never skips it because a module is missing.
 */
export const secondFactor = new Port<SecondFactorCheck>('the second factor of a login');

export const SECOND_FACTOR_TEXTS = {
  required: 'Введите код из приложения-аутентификатора (или код восстановления)',
  badCode: 'Неверный код. Введите код, который приложение показывает сейчас, или неиспользованный код восстановления.',
} as const;

/** The site login's answer when the second factor is missing or wrong: 401 with `two_factor_required: true`. */
export function secondFactorError(result: 'missing' | 'wrong'): HttpError {
  return result === 'missing'
    ? unauthorized(SECOND_FACTOR_TEXTS.required, { code: 'two_factor_required', extra: { two_factor_required: true } })
    : unauthorized(SECOND_FACTOR_TEXTS.badCode, { code: 'bad_two_factor_code', field: 'code', extra: { two_factor_required: true } });
}

// --- The account ----------------------------------------------------------------------------

/** eraseAccount() removed a user's name, address and logins: features forget the personal data they keep (pending address changes, the authenticator). */
export const userErased = new Hook<[trx: Db, userId: number]>();

/**
 * The token of a signed link with which a banned player appeals the ban in force (support), or
 * null on a site without support tickets. Asked where the account was proven while the ban keeps
 * it out: the password login's refusal; the ban's letter or page may ask too (docs/support.md).
 */
export const banAppealToken = new Port<(db: Db, userId: number, since: number) => Promise<string | null>>(
  'ban appeal links',
  async () => null,
);

// --- In game --------------------------------------------------------------------------------

/** Textures of one kind a player wears in game, by the hash of their pixels. */
export interface TextureSource<Worn extends { hash: string }> {
  worn(db: Db, userId: number, now: number): Promise<Worn | null>;
  /** The file of a texture of this kind, or null when no such texture is stored. */
  png(db: Db, hash: string): Promise<Buffer | null>;
}

const NO_TEXTURES: TextureSource<never> = { worn: async () => null, png: async () => null };

/** The skin a player wears: answered by skins; game-auth hands it to launchers and serves the file. */
export const skinTextures = new Port<TextureSource<{ hash: string; slim: boolean }>>('worn skins', NO_TEXTURES);

/** The cape a player wears: answered by capes; game-auth hands it to launchers and serves the file. */
export const capeTextures = new Port<TextureSource<{ hash: string }>>('worn capes', NO_TEXTURES);

/** Players' names seen online in game at `at` (the status sample of a server): players keeps their «last seen». */
export const seenInGame = new Hook<[db: Db, names: string[], at: number]>();

// --- On show -------------------------------------------------------------------------------

/** Which of the given players hid their public profile (Профиль → Настройки → Открытый профиль). */
export interface HiddenPlayers {
  /** Those of `userIds` who are hidden. */
  ids(db: Db, userIds: readonly number[]): Promise<Set<number>>;
  /** Those of `names` (any case) who are hidden, lower-cased. */
  names(db: Db, names: readonly string[]): Promise<Set<string>>;
}

/**
 * Answered by players, asked by every feature that names players on a public page (the votes
 * top, the servers' lists of players online). No fallback: a public list never shows a hidden
 * player because a module is missing.
 */
export const hiddenPlayers = new Port<HiddenPlayers>('players who hid their profile');

/** A player hid or showed their profile (players): features drop the public answers they keep in memory. */
export const privacyChanged = new Hook<[ctx: AppContext, userId: number]>();

// --- Commerce -------------------------------------------------------------------------------

/** Ids of the donate tiers a player holds at `now`: answered by privileges; capes given to a tier are worn by its holders. */
export const heldTiers = new Port<(db: Db, userId: number, now: number) => Promise<number[]>>('held tiers', async () => []);

/** The tier a player holds now, for their public profile: answered by privileges; null when none. */
export const currentTier = new Port<(db: Db, userId: number, now: number) => Promise<{ title: string; expires_at: number } | null>>(
  "a player's current tier",
  async () => null,
);

/** A player's votes on server tops this month: answered by votes; null on a site without votes. */
export const votesThisMonth = new Port<(db: Db, userId: number, now: number) => Promise<number | null>>(
  "a player's votes this month",
  async () => null,
);

/**
 * A top-up was returned to the payer's card, wholly or in part (payments, when the provider
 * confirms): `amount` kopecks went back to the card and `bonus` kopecks of its bonus left the
 * balance. Runs in the transaction that records it, once per refund.
 */
export const topupRefunded = new Hook<[trx: Db, refund: { userId: number; paymentId: string; amount: number; bonus: number }]>();

/**
 * A player spent `amount` kopecks of the balance on something (purchases: an item, a cart's line,
 * a tier, a gift), in the debiting transaction: payments splits it over the top-ups that paid for
 * it and queues the 54-ФЗ completion receipts.
 */
export const balanceSpent = new Hook<[trx: Db, spend: { userId: number; amount: number; ref: string; note: string }]>();

/**
 * Money of a spending went back to the balance of the player who spent it (shop: an undelivered
 * delivery refunded), in the refunding transaction: `amount` kopecks of the spending `spentRef`
 * (its ledger reference, `order:12`) that cost `spent` in all, `returnedBefore` of which had come
 * back earlier; `ref` is the return's own ledger reference. Payments reverses that much of its
 * completion receipts and gives the money back to the top-ups it came from.
 */
export const balanceReturned = new Hook<
  [trx: Db, back: { userId: number; amount: number; spentRef: string; spent: number; returnedBefore: number; ref: string }]
>();

/** A player's latest top-ups for the admin's user card: answered by payments; null on a site without payments. */
export const userPayments = new Port<(ctx: AppContext, userId: number, limit: number) => Promise<UserCard['payments']>>(
  "a player's top-ups",
  async () => null,
);

/** What one ledger row paid for, as the feature that wrote it knows it. */
export interface LedgerRefDetail {
  /** «Алмаз × 2», «VIP на 3 мес.»; null: the ledger's note says enough. */
  title: string | null;
  /** A finer label than the kind's («Покупка привилегии», «Улучшение привилегии»); null: the kind's. */
  label: string | null;
  deliveries: PlayerDelivery[];
}

/** Resolves ledger references of one prefix (`order` of `order:12`) by their ids. */
export type LedgerRefResolver = (db: Db, ids: number[]) => Promise<Map<number, LedgerRefDetail>>;

/**
 * What the ledger's references name, by prefix: the shop answers `order`, privileges answer
 * `privilege`; the player's history (history) asks. A prefix nobody answers is shown with the
 * ledger's own note and no deliveries, so a new way to pay shows up in the history before it
 * registers here.
 */
export class LedgerRefs {
  private readonly resolvers = new Map<string, LedgerRefResolver>();

  /** Registering again (another app in this process) replaces the resolver. */
  provide(prefix: string, resolve: LedgerRefResolver): void {
    this.resolvers.set(prefix, resolve);
  }

  resolver(prefix: string): LedgerRefResolver | undefined {
    return this.resolvers.get(prefix);
  }
}

export const ledgerRefs = new LedgerRefs();
/** Who asked for a top-up, from where: the request's address and sha256 of its `kubik_device` cookie; null where unknown. */
export interface TopupPayer {
  ip: string | null;
  deviceHash: string | null;
  /** The browser's User-Agent, kept with the consents given with the payment. */
  userAgent?: string | null;
}

/**
 * A top-up was credited to a player's balance (payments), in the crediting transaction: referrals
 * rewards the inviter (or refuses when `payer` is the inviter's own browser or address). `amount`
 * is kopecks of money paid (without the owner's bonus); `raw` is the provider's answer that said
 * it was paid (subscriptions read the saved card from it).
 */
export const topupCredited = new Hook<
  [trx: Db, topup: { paymentId: string; userId: number; amount: number; paidAt: number; payer: TopupPayer; raw?: unknown }]
>();

/**
 * A payment for goods paid directly (payments.purpose 'goods': a subscription's period) was
 * credited (payments), in the crediting transaction: the feature that sold them hands them over,
 * taking the money off the balance it just passed through. Its receipt («полный расчёт») went with
 * the payment; it is no top-up: no bonus, no referral reward, no advance to offset.
 */
export const goodsPaid = new Hook<
  [trx: Db, payment: { paymentId: string; userId: number; amount: number; paidAt: number; payer: TopupPayer; raw?: unknown }]
>();

/**
 * An authentic provider notification named a payment the payments feature does not keep (payments):
 * a feature that took the payment itself (a guest's order) re-reads it. Reactions never throw.
 */
export const foreignPaymentNotified = new Hook<[provider: string, providerPaymentId: string]>();

// --- Accounts a game plugin keeps too (AuthMe) -----------------------------------------------

/** Who waits for a password check (front-door/admission.ts): a caller the site knows goes first, a stranger by address. */
export type PasswordCaller = 'known' | { address: string };

/** What the plugin's accounts say of a password login. */
export type LinkedVerdict =
  /** Nothing: the site's own hash decides, as without the plugin. */
  | { kind: 'site' }
  /** The password is right; `user` is the account as it is now (made just now, or its hash renewed). */
  | { kind: 'right'; user: User }
  | { kind: 'wrong' }
  /** The password is right, yet the site login cannot go on: why, for the player (403 with the code). */
  | { kind: 'refused'; code: 'authme_email_required' | 'authme_name_refused'; message: string };

export interface LinkedAccounts {
  /**
   * A password login on the site or from a launcher, by a name or address; `user` is the site's
   * account the login names (undefined when none). Slow checks run in `caller`'s turn.
   */
  checkPassword(
    ctx: AppContext,
    login: { name: string; password: string; user: User | undefined; caller: PasswordCaller; launcher: boolean },
  ): Promise<LinkedVerdict>;
  /** Whether a new account's name is a player's there already (registration refuses it). */
  nameTaken(ctx: AppContext, username: string): Promise<boolean>;
  /**
   * A password was set on the site (registration, change, reset, the admin's edit), after its
   * transaction: the plugin gets the same password. Never throws; a failure is retried later.
   */
  passwordSet(ctx: AppContext, user: Pick<User, 'id'>, password: string, caller: PasswordCaller): Promise<void>;
}

const NO_LINKED_ACCOUNTS: LinkedAccounts = {
  checkPassword: async () => ({ kind: 'site' }),
  nameTaken: async () => false,
  passwordSet: async () => {},
};

/** AuthMe's accounts: answered by authme; asked by the site login, the launchers' login, registration and every password change. */
export const linkedAccounts = new Port<LinkedAccounts>('accounts kept by a game plugin', NO_LINKED_ACCOUNTS);

/** A ban was set, changed or lifted (bans, also when it ran out), in its transaction: authme locks or unlocks the game login. */
export const banChanged = new Hook<[trx: Db, userId: number]>();

// --- Registration ---------------------------------------------------------------------------

/**
 * A player registered themselves (accounts, social), in the registering transaction, with the name
 * the account took: referrals records who invited them, guest orders hand over what waits for the name.
 */
export const userRegistered = new Hook<
  [trx: Db, userId: number, meta: { username: string; ip: string; cookies: Record<string, string | undefined> }]
>();

// --- First-run setup ------------------------------------------------------------------------

/** The first game server the owner names at setup: made by servers in setup's transaction, then checked at once. */
export interface FirstServerMaker {
  create(trx: Db, actorId: number, input: SetupServer): Promise<number>;
  /** After the transaction: the new server's status is asked now, as for one added in the admin. */
  checkSoon(ctx: AppContext, id: number): void;
}
export const firstServer = new Port<FirstServerMaker>('the first game server at setup');

// --- Announcements --------------------------------------------------------------------------

/** Something the community may be told of in Discord, Telegram or VK (announce queues it). */
export type SiteEvent =
  | { kind: 'news'; id: number; title: string; text: string }
  | { kind: 'purchase'; id: string; player: string; item: string; amount: number }
  | { kind: 'ticket'; id: number; subject: string; player: string; category: string | null }
  | { kind: 'server_down'; id: number; server: string; at: number }
  | { kind: 'server_up'; id: number; server: string; online: number; at: number };

/**
 * An event happened (news: published; shop and privileges: a purchase, `amount` in kopecks;
 * support: a new ticket; servers: a server went down or came back), in the transaction that
 * records it when there is one: the messages are queued only if it commits.
 */
export const siteEvent = new Hook<[db: Db, event: SiteEvent]>();
