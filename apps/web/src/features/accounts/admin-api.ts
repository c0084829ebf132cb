import type {
  AdminNoticeBody,
  AdminNoticeResponse,
  AdminUser,
  AdminUserPage,
  AdminUserUpdateBody,
  BalanceChangeBody,
  BalanceChangeResponse,
  MessageResponse,
  UserCard,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ADMIN_USERS_KEY = ['admin', 'users'] as const;
export const userCardKey = (id: number) => [...ADMIN_USERS_KEY, 'card', id] as const;

export const ADMIN_USERS_PER_PAGE = 25;

/** A page of the server-side search (by name, e-mail or number), newest first. */
export function fetchUsersPage(q: string, page: number): Promise<AdminUserPage> {
  const query = new URLSearchParams({ page: String(page), per_page: String(ADMIN_USERS_PER_PAGE) });
  if (q) query.set('q', q);
  return api<AdminUserPage>(`/api/user/all?${query}`);
}
export const fetchUserCard = (id: number) => api<UserCard>(`/api/admin/users/${id}`);
export const sendNotice = (id: number, body: AdminNoticeBody) =>
  api<AdminNoticeResponse>(`/api/admin/users/${id}/notice`, { method: 'POST', body });
export const changeBalance = (id: number, body: BalanceChangeBody) =>
  api<BalanceChangeResponse>(`/api/admin/users/${id}/balance`, { method: 'POST', body });
export const updateUser = (id: number, body: AdminUserUpdateBody) => api<AdminUser>(`/api/user/${id}`, { method: 'PUT', body });
export const deleteUser = (id: number) => api<MessageResponse>(`/api/user/${id}`, { method: 'DELETE' });
/** A player lost the phone and the recovery codes: their two-factor login is turned off (and their sessions end). */
export const resetTwoFactor = (id: number) => api<MessageResponse>(`/api/admin/users/${id}/2fa`, { method: 'DELETE' });
