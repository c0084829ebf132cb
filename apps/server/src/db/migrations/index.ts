import type { Migration } from 'kysely';
import { capesMigrations } from '../../modules/capes/capes.migrations.ts';
import { gameAuthMigrations } from '../../modules/game-auth/game-auth.migrations.ts';
import { auditMigrations } from '../../modules/audit/audit.migrations.ts';
import { dashboardMigrations } from '../../modules/dashboard/dashboard.migrations.ts';
import { deliveriesMigrations } from '../../modules/deliveries/deliveries.migrations.ts';
import { donateMigrations } from '../../modules/donate/donate.migrations.ts';
import { paymentsMigrations } from '../../modules/payments/payments.migrations.ts';
import { privilegesMigrations } from '../../modules/privileges/privileges.migrations.ts';
import { purchasesMigrations } from '../../modules/purchases/purchases.migrations.ts';
import { noticesMigrations } from '../../modules/notices/notices.migrations.ts';
import { newsMigrations } from '../../modules/news/news.migrations.ts';
import { pagesMigrations } from '../../modules/pages/pages.migrations.ts';
import { playersMigrations } from '../../modules/players/players.migrations.ts';
import { serversMigrations } from '../../modules/servers/servers.migrations.ts';
import { bansMigrations } from '../../modules/bans/bans.migrations.ts';
import { emailChangeMigrations } from '../../modules/email-change/email-change.migrations.ts';
import { securityMigrations } from '../../modules/security/security.migrations.ts';
import { twoFactorMigrations } from '../../modules/security/two-factor.migrations.ts';
import { shopMigrations } from '../../modules/shop/shop.migrations.ts';
import { mediaMigrations } from '../../modules/media/media.migrations.ts';
import { skinsMigrations } from '../../modules/skins/skins.migrations.ts';
import { subscriptionsMigrations } from '../../modules/subscriptions/subscriptions.migrations.ts';
import { guestOrdersMigrations } from '../../modules/guest-orders/guest-orders.migrations.ts';
import * as m2026112201 from './2026112201_accounts.ts';
import * as m2026112250 from './2026112250_user_cache_notify.ts';
import * as m2026112300 from './2026112300_jobs.ts';
import * as m2026112301 from './2026112301_settings.ts';
import * as m2026112302 from './2026112302_user_uuid.ts';
import * as m2026112375 from './2026112375_rate_limits.ts';
import { votesMigrations } from '../../modules/votes/votes.migrations.ts';
import { referralsMigrations } from '../../modules/referrals/referrals.migrations.ts';
import { socialMigrations } from '../../modules/social/social.migrations.ts';
import { setupMigrations } from '../../modules/setup/setup.migrations.ts';
import { launcherMigrations } from '../../modules/launcher/launcher.migrations.ts';
import { supportMigrations } from '../../modules/support/support.migrations.ts';
import { announceMigrations } from '../../modules/announce/announce.migrations.ts';
import { authmeMigrations } from '../../modules/authme/authme.migrations.ts';
import { legalMigrations } from '../../modules/site/legal.migrations.ts';
import { receiptsMigrations } from '../../modules/payments/receipts.migrations.ts';
import * as m2026112670 from './2026112670_staff_roles.ts';
import * as m2026112780 from './2026112780_shared_secrets.ts';
import * as m2026112790 from './2026112790_sessions_notify_on_change.ts';
import * as m2026112810 from './2026112810_signed_sessions.ts';

/**
 * Every migration; Kysely runs them in order of name. Each feature keeps its own list with a
 * name range of its own (news 2026112210_…, donate …15_…, servers …20_…, shop …30_…, skins …40_…;
 * cross-feature ones from …50_… here; the platform's from 2026112300_…).
 * A landed migration is never edited: add a new one. One that lands after a later-named one is
 * still run on databases that have the later one (allowUnorderedMigrations, db/migrate.ts).
 */
export const migrations: Record<string, Migration> = {
  '2026112201_accounts': m2026112201,
  ...auditMigrations,
  ...newsMigrations,
  ...donateMigrations,
  ...serversMigrations,
  ...shopMigrations,
  ...skinsMigrations,
  '2026112250_user_cache_notify': m2026112250,
  '2026112300_jobs': m2026112300,
  '2026112301_settings': m2026112301,
  '2026112302_user_uuid': m2026112302,
  ...deliveriesMigrations,
  ...gameAuthMigrations,
  ...capesMigrations,
  ...paymentsMigrations,
  ...mediaMigrations,
  ...privilegesMigrations,
  ...securityMigrations,
  '2026112375_rate_limits': m2026112375,
  ...pagesMigrations,
  ...bansMigrations,
  ...emailChangeMigrations,
  ...dashboardMigrations,
  ...twoFactorMigrations,
  ...purchasesMigrations,
  '2026112670_staff_roles': m2026112670,
  ...setupMigrations,
  ...noticesMigrations,
  ...playersMigrations,
  ...votesMigrations,
  ...referralsMigrations,
  ...socialMigrations,
  ...launcherMigrations,
  '2026112780_shared_secrets': m2026112780,
  '2026112790_sessions_notify_on_change': m2026112790,
  '2026112810_signed_sessions': m2026112810,
  ...supportMigrations,
  ...announceMigrations,
  ...authmeMigrations,
  ...subscriptionsMigrations,
  ...guestOrdersMigrations,
  ...legalMigrations,
  ...receiptsMigrations,
};
