import type { Generated } from 'kysely';
import type { CapesTables } from '../modules/capes/capes.tables.ts';
import type { GameAuthTables } from '../modules/game-auth/game-auth.tables.ts';
import type { AuditTables } from '../modules/audit/audit.tables.ts';
import type { DeliveriesTables } from '../modules/deliveries/deliveries.tables.ts';
import type { DonateTables } from '../modules/donate/donate.tables.ts';
import type { PaymentsTables } from '../modules/payments/payments.tables.ts';
import type { SubscriptionsTables } from '../modules/subscriptions/subscriptions.tables.ts';
import type { GuestOrdersTables } from '../modules/guest-orders/guest-orders.tables.ts';
import type { PrivilegesTables } from '../modules/privileges/privileges.tables.ts';
import type { PurchasesTables } from '../modules/purchases/purchases.tables.ts';
import type { NewsTables } from '../modules/news/news.tables.ts';
import type { PagesTables } from '../modules/pages/pages.tables.ts';
import type { PlayersTables } from '../modules/players/players.tables.ts';
import type { ServersTables } from '../modules/servers/servers.tables.ts';
import type { ShopTables } from '../modules/shop/shop.tables.ts';
import type { SkinsTables } from '../modules/skins/skins.tables.ts';
import type { MediaTables } from '../modules/media/media.tables.ts';
import type { SecurityTables } from '../modules/security/security.tables.ts';
import type { BansTables } from '../modules/bans/bans.tables.ts';
import type { EmailChangeTables } from '../modules/email-change/email-change.tables.ts';
import type { SetupTables } from '../modules/setup/setup.tables.ts';
import type { NoticesTables } from '../modules/notices/notices.tables.ts';
import type { TwoFactorTables } from '../modules/security/two-factor.tables.ts';
import type { VotesTables } from '../modules/votes/votes.tables.ts';
import type { SocialTables } from '../modules/social/social.tables.ts';
import type { ReferralsTables } from '../modules/referrals/referrals.tables.ts';
import type { LauncherTables } from '../modules/launcher/launcher.tables.ts';
import type { SupportTables } from '../modules/support/support.tables.ts';
import type { AnnounceTables } from '../modules/announce/announce.tables.ts';
import type { AuthMeTables } from '../modules/authme/authme.tables.ts';
import type { LegalTables } from '../modules/site/legal.tables.ts';
import type { ReceiptsTables } from '../modules/payments/receipts.tables.ts';

/** Times are epoch milliseconds and booleans 0/1 on both databases, so one code path serves both. */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  username_lower: string;
  email: string;
  email_lower: string;
  password_hash: string;
  is_admin: number;
  /** Integer kopecks; always equals the sum of the user's ledger rows. */
  balance: number;
  email_verified_at: number | null;
  created_at: number;
  deleted_at: number | null;
  /**
   * The game profile's UUID, set once at creation and never changed (not even on a rename): the
   * offline-mode UUID of the name it was created with (base/offline-uuid.ts), or a random one
   * when another account holds that.
   */
  uuid: string;
  /** The ban in force (modules/bans): since when; null when not banned. The bans table keeps the history. */
  banned_at: number | null;
  /** Its end (epoch ms); null with banned_at set: forever. A passed end no longer counts, even before the expiry job clears it. */
  ban_until: number | null;
  /** Its public reason, the one the player and everyone see; null or '' when none. The staff's note is only in bans.note. */
  ban_reason: string | null;
  /** The staff role (staff_roles) of a staff member who is not the owner; null for players and the owner. */
  role_id: number | null;
}

/** A staff role: what its holders may do in the admin area. */
export interface StaffRolesTable {
  id: Generated<number>;
  name: string;
  name_lower: string;
  /** JSON array of permission keys (contract PERMISSIONS); unknown keys are ignored when read. */
  permissions: string;
  created_at: number;
  updated_at: number;
}

export interface SessionsTable {
  token_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  user_agent: string | null;
  ip: string | null;
  /** Updated at most every few minutes (each write clears the user cache). */
  last_seen_at: number | null;
  /** 1 when the token carries the site's signature (modules/users/session-tokens.ts); 0 for older sessions. */
  signed: Generated<number>;
}

export interface EmailTokensTable {
  id: Generated<number>;
  user_id: number;
  kind: 'verify' | 'reset';
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface LedgerTable {
  id: Generated<number>;
  user_id: number;
  /** Signed kopecks. */
  amount: number;
  /** adjustment | purchase | refund | … */
  reason: string;
  author_id: number | null;
  ref: string | null;
  note: string | null;
  created_at: number;
}

export interface MailOutboxTable {
  id: Generated<number>;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  /** The action link, logged when no SMTP server is configured. */
  link: string | null;
  attempts: number;
  next_attempt_at: number;
  /** Claim of one worker (lib/jobs/claim.ts). */
  lock_token: string | null;
  locked_until: number | null;
  sent_at: number | null;
  failed_at: number | null;
  last_error: string | null;
  created_at: number;
}

/** One row per periodic singleton job (lib/jobs/schedule.ts). */
export interface JobScheduleTable {
  name: string;
  next_run_at: number;
  lock_token: string | null;
  locked_until: number | null;
  last_started_at: number | null;
  last_finished_at: number | null;
  last_error: string | null;
  /** Failures in a row; 0 after a success. */
  failures: number;
  runs: number;
}

/** Owner-edited settings documents (lib/settings.ts). */
export interface SettingsTable {
  key: string;
  /** JSON object of the fields the owner set; the rest come from defaults. */
  value: string;
  updated_at: number;
}

/** Rate-limit windows shared by the instances on PostgreSQL (lib/rate-limit.ts); unused on SQLite. */
/** Secrets the site made for itself, shared by every instance (migration 2026112780). */
export interface SharedSecretsTable {
  name: string;
  /** base64 */
  value: string;
  created_at: number;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  /** When the window ends (epoch ms). */
  reset_at: number;
}

interface CoreTables {
  users: UsersTable;
  sessions: SessionsTable;
  email_tokens: EmailTokensTable;
  ledger: LedgerTable;
  mail_outbox: MailOutboxTable;
  job_schedule: JobScheduleTable;
  settings: SettingsTable;
  rate_limits: RateLimitsTable;
  shared_secrets: SharedSecretsTable;
  staff_roles: StaffRolesTable;
}

/** Every table: the core ones here, each feature's in modules/<feature>/<feature>.tables.ts. */
export interface Database
  extends
    CoreTables,
    AuditTables,
    NoticesTables,
    DeliveriesTables,
    NewsTables,
    DonateTables,
    ServersTables,
    ShopTables,
    SkinsTables,
    GameAuthTables,
    CapesTables,
    PrivilegesTables,
    PurchasesTables,
    SecurityTables,
    MediaTables,
    PagesTables,
    PlayersTables,
    PaymentsTables,
    LegalTables,
    ReceiptsTables,
    BansTables,
    EmailChangeTables,
    TwoFactorTables,
    VotesTables,
    ReferralsTables,
    SocialTables,
    LauncherTables,
    SupportTables,
    AnnounceTables,
    AuthMeTables,
    SetupTables,
    SubscriptionsTables,
    GuestOrdersTables {}
