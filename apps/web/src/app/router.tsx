import { lazy, type ComponentType } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { TOPUP_PATH } from '../lib/paths.ts';
import { loadAuthPages } from './auth-pages.ts';
import HomePage, { preloadHomePage } from './pages/HomePage.tsx';
import { lazyPage } from './lazy-page.tsx';
import { GuestOnly, RequireUser } from './guards.tsx';
import { Layout } from './Layout.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';

// Every screen but the home page is a chunk of its own. The account forms share one (they follow
// each other quickly), which a guest's header loads when «Вход» or «Регистрация» is pointed at (Header.tsx).
const LoginPage = lazyPage(() => loadAuthPages().then((m) => ({ default: m.LoginPage })));
const RegisterPage = lazyPage(() => loadAuthPages().then((m) => ({ default: m.RegisterPage })));
const ForgotPasswordPage = lazyPage(() => loadAuthPages().then((m) => ({ default: m.ForgotPasswordPage })));
const ResetPasswordPage = lazyPage(() => loadAuthPages().then((m) => ({ default: m.ResetPasswordPage })));
const HelpPage = lazyPage(() => import('./pages/HelpPage.tsx'));
const EmailChangePage = lazyPage(() => import('../features/accounts/EmailChangePage.tsx'));
const RulesPage = lazyPage(() => import('../features/pages/RulesPage.tsx'));
const CustomPage = lazyPage(() => import('../features/pages/CustomPage.tsx'));
const NewsPage = lazyPage(() => import('../features/news/NewsPage.tsx'));
const DonatePage = lazyPage(() => import('../features/donate/DonatePage.tsx'));
const ServersPage = lazyPage(() => import('../features/servers/ServersPage.tsx'));
const ProfilePage = lazyPage(() => import('./pages/ProfilePage.tsx'));
const PlayerPage = lazyPage(() => import('./pages/PlayerPage.tsx'));
const ShopPage = lazyPage(() => import('../features/shop/ShopPage.tsx'));
const TopUpPage = lazyPage(() => import('../features/payments/TopUpPage.tsx'));
const VotePage = lazyPage(() => import('../features/votes/Vote.tsx'));
// The admin frame's chunk also carries the staff screen (one import less in the first page's script).
const loadAdminLayout = () => import('./admin/AdminLayout.tsx');
const AdminLayout = lazy(loadAdminLayout);
const AdminDashboardPage = lazy(() => import('../features/dashboard/AdminDashboardPage.tsx'));
const AdminUsersPage = lazy(() => import('../features/accounts/AdminUsersPage.tsx'));
const AdminNewsPage = lazy(() => import('../features/news/AdminNewsPage.tsx'));
const AdminShopPage = lazy(() => import('../features/shop/AdminShopPage.tsx'));
const AdminDonatePage = lazy(() => import('../features/donate/AdminDonatePage.tsx'));
const AdminServersPage = lazy(() => import('../features/servers/AdminServersPage.tsx'));
const AdminAuditPage = lazy(() => import('../features/audit/AdminAuditPage.tsx'));
const AdminCapesPage = lazy(() => import('../features/capes/AdminCapesPage.tsx'));
const AdminMediaPage = lazy(() => import('../features/media/AdminMediaPage.tsx'));
const AdminGameLoginPage = lazy(() => import('../features/help/AdminGameLoginPage.tsx'));
const AdminSecurityPage = lazy(() => import('../features/security/AdminSecurityPage.tsx'));
const AdminSiteSettingsPage = lazy(() => import('../features/site/AdminSettingsPage.tsx'));
const AdminSocialSettings = lazy(() =>
  import('../features/social/AdminSocialSettings.tsx').then((m) => ({ default: m.AdminSocialSettings })),
);
/** Настройки: the site's own, then the keys of social login (features/social). */
function AdminSettingsPage() {
  return (
    <>
      <AdminSiteSettingsPage />
      <AdminSocialSettings />
    </>
  );
}
const AdminPagesPage = lazy(() => import('../features/pages/AdminPagesPage.tsx'));
const AdminPaymentsPage = lazy(() => import('../features/payments-admin/AdminPaymentsPage.tsx'));
const AdminStaffPage = lazy(() => loadAdminLayout().then((m) => ({ default: m.AdminStaffPage })));
// «Войти через …» under the login and registration forms: a small chunk of its own, out of the first page's script.
const SocialButtons = lazy(() => import('../features/social/SocialButtons.tsx').then((m) => ({ default: m.SocialButtons })));
const SocialCompletePage = lazyPage(() => import('../features/social/SocialCompletePage.tsx'));
const TelegramReturnPage = lazyPage(() => import('../features/social/TelegramReturnPage.tsx'));
const SetupPage = lazyPage(() => loadAuthPages().then((m) => ({ default: m.SetupPage })));

const PRELOAD: Record<string, () => Promise<unknown>> = {
  '/': preloadHomePage,
  '/help': HelpPage.preload,
  '/rules': RulesPage.preload,
  '/donate': DonatePage.preload,
  '/servers': ServersPage.preload,
  '/profile': ProfilePage.preload,
  '/shop': ShopPage.preload,
  [TOPUP_PATH]: TopUpPage.preload,
  '/login': LoginPage.preload,
  '/register': RegisterPage.preload,
  '/forgot-password': ForgotPasswordPage.preload,
  '/reset-password': ResetPasswordPage.preload,
};

/** Loads the code of the page at `pathname`, when it is a chunk of its own. */
export function preloadPage(pathname: string): Promise<unknown> {
  if (pathname.startsWith('/p/')) return CustomPage.preload();
  if (pathname.startsWith('/news/')) return NewsPage.preload();
  return PRELOAD[pathname]?.() ?? Promise.resolve();
}

/** The admin screens by address; the frame (AdminLayout) checks the caller's permission for each. */
const ADMIN_PAGES: Record<string, ComponentType> = {
  '/admin': AdminDashboardPage,
  '/admin/users': AdminUsersPage,
  '/admin/news': AdminNewsPage,
  '/admin/shop': AdminShopPage,
  // Промокоды: a view of the shop's admin chunk (features/shop/AdminShopPage.tsx). /admin/votes is drawn by the frame (FRAME_SCREENS).
  '/admin/promo': AdminShopPage,
  '/admin/donate': AdminDonatePage,
  '/admin/servers': AdminServersPage,
  '/admin/audit': AdminAuditPage,
  '/admin/capes': AdminCapesPage,
  '/admin/media': AdminMediaPage,
  '/admin/game-login': AdminGameLoginPage,
  '/admin/settings': AdminSettingsPage,
  '/admin/security': AdminSecurityPage,
  '/admin/pages': AdminPagesPage,
  '/admin/payments': AdminPaymentsPage,
  '/admin/staff': AdminStaffPage,
};

/** An unknown admin address is sent by the frame to the first screen the caller may use. */
function AdminPage() {
  const Page = ADMIN_PAGES[useLocation()[0]];
  return <AdminLayout>{Page && <Page />}</AdminLayout>;
}

/** The first route that matches the address wins; the last one, without a path, is «not found». */
export function AppRoutes() {
  return (
    <Layout>
      <Switch>
        <Route path="/">
          <HomePage />
        </Route>
        <Route path="/help">
          <HelpPage />
        </Route>
        <Route path="/rules">
          <RulesPage />
        </Route>
        <Route path="/p/:slug">
          <CustomPage />
        </Route>
        <Route path="/news/:id">
          <NewsPage />
        </Route>
        <Route path="/donate">
          <DonatePage />
        </Route>
        <Route path="/servers">
          <ServersPage />
        </Route>
        <Route path="/u/:name">
          <PlayerPage />
        </Route>
        <Route path="/profile">
          <RequireUser>
            <ProfilePage />
          </RequireUser>
        </Route>
        {/* /shop and /cart: the cart is a view of the shop's chunk (features/shop/ShopPage.tsx), one lazy page less on the first page. */}
        <Route path={/^\/(shop|cart)\/?$/}>
          <ShopPage />
        </Route>
        <Route path="/vote">
          <VotePage />
        </Route>
        <Route path={TOPUP_PATH}>
          <RequireUser>
            <TopUpPage />
          </RequireUser>
        </Route>
        <Route path="/login">
          <GuestOnly>
            <LoginPage />
            <SocialButtons />
          </GuestOnly>
        </Route>
        <Route path="/login/social">
          <SocialCompletePage />
        </Route>
        <Route path="/login/telegram">
          <TelegramReturnPage />
        </Route>
        <Route path="/register">
          <GuestOnly>
            <RegisterPage />
            <SocialButtons title="Или зарегистрируйтесь через" />
          </GuestOnly>
        </Route>
        <Route path="/forgot-password">
          <GuestOnly>
            <ForgotPasswordPage />
          </GuestOnly>
        </Route>
        {/* Also for a signed-in player: an account made through VK, Telegram or Discord gets its password this way. */}
        <Route path="/reset-password">
          <ResetPasswordPage />
        </Route>
        <Route path="/email-change">
          <EmailChangePage />
        </Route>
        <Route path="/admin/*?">
          <AdminPage />
        </Route>
        <Route path="/setup">
          <SetupPage />
        </Route>
        <Route>
          <NotFoundPage />
        </Route>
      </Switch>
    </Layout>
  );
}
