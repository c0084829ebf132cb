import { lazy, useState, type ComponentType, type ReactNode } from 'react';
import { Route, Switch } from 'wouter';
import { TOPUP_PATH } from '../lib/paths.ts';
import { loadAuthPages } from './auth-pages.ts';
import HomePage from './pages/HomePage.tsx';
import { GuestOnly, RequireAdmin, RequireUser } from './guards.tsx';
import { Layout } from './Layout.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';

// Every screen but the home page is a chunk of its own. The account forms share one (they follow
// each other quickly), which a guest's header loads at once (Header.tsx), so they do not wait for it.
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
const AdminLayout = lazy(() => import('./admin/AdminLayout.tsx'));
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
const AdminSettingsPage = lazy(() => import('../features/site/AdminSettingsPage.tsx'));
const AdminPagesPage = lazy(() => import('../features/pages/AdminPagesPage.tsx'));
const AdminPaymentsPage = lazy(() => import('../features/payments-admin/AdminPaymentsPage.tsx'));

/**
 * lazy(), and preload() for the page the browser opens first (main.tsx): once its module is in, a
 * page renders at once instead of suspending for a moment and showing the loading text first.
 */
function lazyPage(load: () => Promise<{ default: ComponentType }>) {
  let loaded: ComponentType | undefined;
  const remember = <M extends { default: ComponentType }>(module: M) => {
    loaded = module.default;
    return module;
  };
  const Lazy = lazy(() => load().then(remember));
  function Page() {
    // Chosen once per mount: switching from Lazy to the loaded component later would remount the page.
    const [Component] = useState(() => loaded ?? Lazy);
    return <Component />;
  }
  Page.preload = () => load().then(remember);
  return Page;
}

const PRELOAD: Record<string, () => Promise<unknown>> = {
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

function Admin({ children }: { children: ReactNode }) {
  return (
    <RequireAdmin>
      <AdminLayout>{children}</AdminLayout>
    </RequireAdmin>
  );
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
        <Route path="/shop">
          <RequireUser>
            <ShopPage />
          </RequireUser>
        </Route>
        <Route path={TOPUP_PATH}>
          <RequireUser>
            <TopUpPage />
          </RequireUser>
        </Route>
        <Route path="/login">
          <GuestOnly>
            <LoginPage />
          </GuestOnly>
        </Route>
        <Route path="/register">
          <GuestOnly>
            <RegisterPage />
          </GuestOnly>
        </Route>
        <Route path="/forgot-password">
          <GuestOnly>
            <ForgotPasswordPage />
          </GuestOnly>
        </Route>
        <Route path="/reset-password">
          <GuestOnly>
            <ResetPasswordPage />
          </GuestOnly>
        </Route>
        <Route path="/email-change">
          <EmailChangePage />
        </Route>
        <Route path="/admin">
          <Admin>
            <AdminDashboardPage />
          </Admin>
        </Route>
        <Route path="/admin/users">
          <Admin>
            <AdminUsersPage />
          </Admin>
        </Route>
        <Route path="/admin/news">
          <Admin>
            <AdminNewsPage />
          </Admin>
        </Route>
        <Route path="/admin/shop">
          <Admin>
            <AdminShopPage />
          </Admin>
        </Route>
        <Route path="/admin/donate">
          <Admin>
            <AdminDonatePage />
          </Admin>
        </Route>
        <Route path="/admin/servers">
          <Admin>
            <AdminServersPage />
          </Admin>
        </Route>
        <Route path="/admin/audit">
          <Admin>
            <AdminAuditPage />
          </Admin>
        </Route>
        <Route path="/admin/capes">
          <Admin>
            <AdminCapesPage />
          </Admin>
        </Route>
        <Route path="/admin/media">
          <Admin>
            <AdminMediaPage />
          </Admin>
        </Route>
        <Route path="/admin/game-login">
          <Admin>
            <AdminGameLoginPage />
          </Admin>
        </Route>
        <Route path="/admin/settings">
          <Admin>
            <AdminSettingsPage />
          </Admin>
        </Route>
        <Route path="/admin/security">
          <Admin>
            <AdminSecurityPage />
          </Admin>
        </Route>
        <Route path="/admin/pages">
          <Admin>
            <AdminPagesPage />
          </Admin>
        </Route>
        <Route path="/admin/payments">
          <Admin>
            <AdminPaymentsPage />
          </Admin>
        </Route>
        <Route>
          <NotFoundPage />
        </Route>
      </Switch>
    </Layout>
  );
}
