import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { accountsRoutes } from './accounts/accounts.routes.ts';
import { adminUsersRoutes } from './accounts/admin-users.routes.ts';
import { bansRoutes } from './bans/bans.routes.ts';
import { emailChangeRoutes } from './email-change/email-change.routes.ts';
import { accountDeletionRoutes } from './account-deletion/account-deletion.routes.ts';
import { auditRoutes } from './audit/audit.routes.ts';
import { capesRoutes } from './capes/capes.routes.ts';
import { dashboardRoutes } from './dashboard/dashboard.routes.ts';
import { deliveriesRoutes } from './deliveries/deliveries.routes.ts';
import { donateRoutes } from './donate/donate.routes.ts';
import { gameAuthRoutes } from './game-auth/game-auth.routes.ts';
import { historyRoutes } from './history/history.routes.ts';
import { paymentsAdminRoutes } from './payments/payments.admin.routes.ts';
import { paymentsRoutes } from './payments/payments.routes.ts';
import { mediaRoutes } from './media/media.routes.ts';
import { privilegesRoutes } from './privileges/privileges.routes.ts';
import { noticesRoutes } from './notices/notices.routes.ts';
import { newsRoutes } from './news/news.routes.ts';
import { pagesRoutes } from './pages/pages.routes.ts';
import { playersRoutes } from './players/players.routes.ts';
import { opsRoutes } from './ops/ops.routes.ts';
import { serversRoutes } from './servers/servers.routes.ts';
import { shopRoutes } from './shop/shop.routes.ts';
import { promoRoutes } from './promo/promo.routes.ts';
import { siteRoutes } from './site/site.routes.ts';
import { skinsRoutes } from './skins/skins.routes.ts';
import { sessionsRoutes } from './security/sessions.routes.ts';
import { staffRoutes } from './staff/staff.routes.ts';
import { setupRoutes } from './setup/setup.routes.ts';
import { twoFactorRoutes } from './security/two-factor.routes.ts';
import { votesRoutes } from './votes/votes.routes.ts';
import { socialRoutes } from './social/social.routes.ts';
import { referralsRoutes } from './referrals/referrals.routes.ts';
import { launcherRoutes } from './launcher/launcher.routes.ts';
import { supportRoutes } from './support/support.routes.ts';
import { authmeRoutes } from './authme/authme.routes.ts';
import { subscriptionsRoutes } from './subscriptions/subscriptions.routes.ts';
import { guestOrdersRoutes } from './guest-orders/guest-orders.routes.ts';
import { fiscalRoutes } from './fiscal/fiscal.routes.ts';
import { receiptsRoutes } from './payments/receipts.routes.ts';
import { announceRoutes } from './announce/announce.routes.ts';

/**
 * Every module's routes; app.ts registers them in this order. Making a feature's routes also
 * registers what it answers for the others (the ports and hooks of users/users.ports.ts), so a
 * feature left out here is left out everywhere.
 */
export const modules: ((ctx: AppContext) => FastifyPluginAsyncZod)[] = [
  siteRoutes,
  accountsRoutes,
  adminUsersRoutes,
  auditRoutes,
  noticesRoutes,
  newsRoutes,
  donateRoutes,
  serversRoutes,
  shopRoutes,
  promoRoutes,
  deliveriesRoutes,
  skinsRoutes,
  capesRoutes,
  gameAuthRoutes,
  mediaRoutes,
  privilegesRoutes,
  opsRoutes,
  pagesRoutes,
  paymentsRoutes,
  paymentsAdminRoutes,
  subscriptionsRoutes,
  guestOrdersRoutes,
  dashboardRoutes,
  bansRoutes,
  emailChangeRoutes,
  accountDeletionRoutes,
  twoFactorRoutes,
  sessionsRoutes,
  staffRoutes,
  setupRoutes,
  historyRoutes,
  playersRoutes,
  votesRoutes,
  referralsRoutes,
  socialRoutes,
  launcherRoutes,
  supportRoutes,
  authmeRoutes,
  fiscalRoutes,
  receiptsRoutes,
  announceRoutes,
];
