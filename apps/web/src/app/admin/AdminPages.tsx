import { lazy, type ComponentType } from 'react';
import { useLocation } from 'wouter';
import AdminLayout, { AdminStaffPage } from './AdminLayout.tsx';

// Each admin screen is a chunk of its own; the frame and the staff screen come with this one.
const AdminDashboardPage = lazy(() => import('../../features/dashboard/AdminDashboardPage.tsx'));
const AdminUsersPage = lazy(() => import('../../features/accounts/AdminUsersPage.tsx'));
const AdminNewsPage = lazy(() => import('../../features/news/AdminNewsPage.tsx'));
const AdminShopPage = lazy(() => import('../../features/shop/AdminShopPage.tsx'));
const AdminDonatePage = lazy(() => import('../../features/donate/AdminDonatePage.tsx'));
const AdminServersPage = lazy(() => import('../../features/servers/AdminServersPage.tsx'));
const AdminAuditPage = lazy(() => import('../../features/audit/AdminAuditPage.tsx'));
const AdminCapesPage = lazy(() => import('../../features/capes/AdminCapesPage.tsx'));
const AdminMediaPage = lazy(() => import('../../features/media/AdminMediaPage.tsx'));
const AdminGameLoginPage = lazy(() => import('../../features/help/AdminGameLoginPage.tsx'));
const AdminSecurityPage = lazy(() => import('../../features/security/AdminSecurityPage.tsx'));
const AdminSiteSettingsPage = lazy(() => import('../../features/site/AdminSettingsPage.tsx'));
const AdminSocialSettings = lazy(() =>
  import('../../features/social/AdminSocialSettings.tsx').then((m) => ({ default: m.AdminSocialSettings })),
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
const AdminPagesPage = lazy(() => import('../../features/pages/AdminPagesPage.tsx'));
const AdminPaymentsPage = lazy(() => import('../../features/payments-admin/AdminPaymentsPage.tsx'));
const AdminFiscalPage = lazy(() => import('../../features/fiscal-admin/AdminFiscalPage.tsx'));
const AdminAuthMePage = lazy(() => import('../../features/authme/AdminAuthMePage.tsx'));
const AdminBanSourcePage = lazy(() => import('../../features/bans/AdminBanSourcePage.tsx'));
const AdminAnnouncePage = lazy(() => import('../../features/announce/AdminAnnouncePage.tsx'));

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
  '/admin/fiscal': AdminFiscalPage,
  '/admin/staff': AdminStaffPage,
  '/admin/authme': AdminAuthMePage,
  '/admin/bans': AdminBanSourcePage,
  '/admin/announcements': AdminAnnouncePage,
};

/** An unknown admin address is sent by the frame to the first screen the caller may use. */
export default function AdminPage() {
  const Page = ADMIN_PAGES[useLocation()[0]];
  return <AdminLayout>{Page && <Page />}</AdminLayout>;
}
