import { lazy } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import ForgotPasswordPage from '../features/accounts/ForgotPasswordPage.tsx';
import LoginPage from '../features/accounts/LoginPage.tsx';
import RegisterPage from '../features/accounts/RegisterPage.tsx';
import ResetPasswordPage from '../features/accounts/ResetPasswordPage.tsx';
import HomePage from '../features/news/HomePage.tsx';
import { GuestOnly, RequireAdmin, RequireUser } from './guards.tsx';
import { Layout } from './Layout.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';

// Every screen but the first ones a visitor sees is a chunk of its own.
const HelpPage = lazy(() => import('../features/help/HelpPage.tsx'));
const RulesPage = lazy(() => import('../features/rules/RulesPage.tsx'));
const DonatePage = lazy(() => import('../features/donate/DonatePage.tsx'));
const ServersPage = lazy(() => import('../features/servers/ServersPage.tsx'));
const ProfilePage = lazy(() => import('../features/profile/ProfilePage.tsx'));
const ShopPage = lazy(() => import('../features/shop/ShopPage.tsx'));
const AdminLayout = lazy(() => import('../features/admin/AdminLayout.tsx'));
const AdminUsersPage = lazy(() => import('../features/accounts/AdminUsersPage.tsx'));
const AdminNewsPage = lazy(() => import('../features/news/AdminNewsPage.tsx'));
const AdminShopPage = lazy(() => import('../features/shop/AdminShopPage.tsx'));
const AdminDonatePage = lazy(() => import('../features/donate/AdminDonatePage.tsx'));
const AdminServersPage = lazy(() => import('../features/servers/AdminServersPage.tsx'));
const AdminAuditPage = lazy(() => import('../features/admin/AdminAuditPage.tsx'));

export const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/help', element: <HelpPage /> },
      { path: '/rules', element: <RulesPage /> },
      { path: '/donate', element: <DonatePage /> },
      { path: '/servers', element: <ServersPage /> },
      { path: '/profile', element: <RequireUser><ProfilePage /></RequireUser> },
      { path: '/shop', element: <RequireUser><ShopPage /></RequireUser> },
      { path: '/login', element: <GuestOnly><LoginPage /></GuestOnly> },
      { path: '/register', element: <GuestOnly><RegisterPage /></GuestOnly> },
      { path: '/forgot-password', element: <GuestOnly><ForgotPasswordPage /></GuestOnly> },
      { path: '/reset-password', element: <GuestOnly><ResetPasswordPage /></GuestOnly> },
      {
        path: '/admin',
        element: <RequireAdmin><AdminLayout /></RequireAdmin>,
        children: [
          { index: true, element: <Navigate to="/admin/users" replace /> },
          { path: 'users', element: <AdminUsersPage /> },
          { path: 'news', element: <AdminNewsPage /> },
          { path: 'shop', element: <AdminShopPage /> },
          { path: 'donate', element: <AdminDonatePage /> },
          { path: 'servers', element: <AdminServersPage /> },
          { path: 'audit', element: <AdminAuditPage /> },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
