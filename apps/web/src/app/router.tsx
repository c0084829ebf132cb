import { lazy } from 'react';
import { Route, Switch } from 'wouter';
import { TOPUP_PATH } from '../lib/paths.ts';
import { loadAuthPages } from './auth-pages.ts';
import HomePage, { preloadHomePage } from './pages/HomePage.tsx';
import { lazyPage } from './lazy-page.tsx';
import { GuestOnly, RequireUser } from './guards.tsx';
import { Layout } from './Layout.tsx';

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
const LegalPage = lazyPage(() => import('../features/pages/LegalPage.tsx'));
const NewsPage = lazyPage(() => import('../features/news/NewsPage.tsx'));
const DonatePage = lazyPage(() => import('../features/donate/DonatePage.tsx'));
const ServersPage = lazyPage(() => import('../features/servers/ServersPage.tsx'));
const ProfilePage = lazyPage(() => import('./pages/ProfilePage.tsx'));
const PlayerPage = lazyPage(() => import('./pages/PlayerPage.tsx'));
const ShopPage = lazyPage(() => import('../features/shop/ShopPage.tsx'));
const TopUpPage = lazyPage(() => import('../features/payments/TopUpPage.tsx'));
const VotePage = lazyPage(() => import('../features/votes/Vote.tsx'));
const BansPage = lazyPage(() => import('../features/bans/BansPage.tsx'));
// /support and its pages, and /support/appeal for a banned player: one chunk that guards itself.
const SupportPage = lazyPage(() => import('../features/support/SupportPage.tsx'));
// The admin area, its frame and its map of screens, is one chunk (admin/AdminPages.tsx): no admin address in the first page's script.
const AdminPage = lazy(() => import('./admin/AdminPages.tsx'));
// «Войти через …» under the login and registration forms: a small chunk of its own, out of the first page's script.
const SocialButtons = lazy(() => import('../features/social/SocialButtons.tsx').then((m) => ({ default: m.SocialButtons })));
const SocialCompletePage = lazyPage(() => import('../features/social/SocialCompletePage.tsx'));
const TelegramReturnPage = lazyPage(() => import('../features/social/TelegramReturnPage.tsx'));
// First-run setup, once in a site's life: a chunk of its own, out of the login form's.
const SetupPage = lazyPage(() => import('../features/accounts/SetupPage.tsx'));
// An address that leads nowhere is rare: its page is not in the first page's script either.
const NotFoundPage = lazyPage(() => import('./NotFoundPage.tsx'));

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
        <Route path="/legal/:kind">
          <LegalPage />
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
        <Route path="/support/*?">
          <SupportPage />
        </Route>
        <Route path="/bans">
          <BansPage />
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
