import { lazy, useState, type ComponentType } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import ForgotPasswordPage from '../features/accounts/ForgotPasswordPage.tsx';
import LoginPage from '../features/accounts/LoginPage.tsx';
import RegisterPage from '../features/accounts/RegisterPage.tsx';
import ResetPasswordPage from '../features/accounts/ResetPasswordPage.tsx';
import HomePage from '../features/news/HomePage.tsx';
import { GuestOnly, RequireAdmin, RequireUser } from './guards.tsx';
import { Layout } from './Layout.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';

// Every screen but the home page and the account forms (which follow each other quickly: a
// lazy chunk would leave the previous form on screen while it loads) is a chunk of its own.
const HelpPage = lazyPage(() => import('../features/help/HelpPage.tsx'));
const RulesPage = lazyPage(() => import('../features/rules/RulesPage.tsx'));
const DonatePage = lazyPage(() => import('../features/donate/DonatePage.tsx'));
const ServersPage = lazyPage(() => import('../features/servers/ServersPage.tsx'));
const ProfilePage = lazyPage(() => import('../features/profile/ProfilePage.tsx'));
const ShopPage = lazyPage(() => import('../features/shop/ShopPage.tsx'));
const AdminLayout = lazy(() => import('../features/admin/AdminLayout.tsx'));
const AdminUsersPage = lazy(() => import('../features/accounts/AdminUsersPage.tsx'));
const AdminNewsPage = lazy(() => import('../features/news/AdminNewsPage.tsx'));
const AdminShopPage = lazy(() => import('../features/shop/AdminShopPage.tsx'));
const AdminDonatePage = lazy(() => import('../features/donate/AdminDonatePage.tsx'));
const AdminServersPage = lazy(() => import('../features/servers/AdminServersPage.tsx'));
const AdminAuditPage = lazy(() => import('../features/admin/AdminAuditPage.tsx'));

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
};

/** Loads the code of the page at `pathname`, when it is a chunk of its own. */
export function preloadPage(pathname: string): Promise<unknown> {
  return PRELOAD[pathname]?.() ?? Promise.resolve();
}

/**
 * Declarative routes: the data-router half of React Router is not used here and would double its
 * share of the first page's JavaScript.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/" element={<HomePage />} />
        <Route path="/help" element={<HelpPage />} />
        <Route path="/rules" element={<RulesPage />} />
        <Route path="/donate" element={<DonatePage />} />
        <Route path="/servers" element={<ServersPage />} />
        <Route path="/profile" element={<RequireUser><ProfilePage /></RequireUser>} />
        <Route path="/shop" element={<RequireUser><ShopPage /></RequireUser>} />
        <Route path="/login" element={<GuestOnly><LoginPage /></GuestOnly>} />
        <Route path="/register" element={<GuestOnly><RegisterPage /></GuestOnly>} />
        <Route path="/forgot-password" element={<GuestOnly><ForgotPasswordPage /></GuestOnly>} />
        <Route path="/reset-password" element={<GuestOnly><ResetPasswordPage /></GuestOnly>} />
        <Route path="/admin" element={<RequireAdmin><AdminLayout /></RequireAdmin>}>
          <Route index element={<Navigate to="/admin/users" replace />} />
          <Route path="users" element={<AdminUsersPage />} />
          <Route path="news" element={<AdminNewsPage />} />
          <Route path="shop" element={<AdminShopPage />} />
          <Route path="donate" element={<AdminDonatePage />} />
          <Route path="servers" element={<AdminServersPage />} />
          <Route path="audit" element={<AdminAuditPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
