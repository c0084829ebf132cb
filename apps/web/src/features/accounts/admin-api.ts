import type { AdminUser, AdminUserUpdateBody, AuditPage, MessageResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ADMIN_USERS_KEY = ['admin', 'users'] as const;
export const AUDIT_KEY = ['admin', 'audit'] as const;

export const fetchUsers = () => api<AdminUser[]>('/api/user/all');
export const updateUser = (id: number, body: AdminUserUpdateBody) => api<AdminUser>(`/api/user/${id}`, { method: 'PUT', body });
export const deleteUser = (id: number) => api<MessageResponse>(`/api/user/${id}`, { method: 'DELETE' });

export function fetchAudit(page: number, entity: string): Promise<AuditPage> {
  const query = new URLSearchParams({ page: String(page) });
  if (entity) query.set('entity', entity);
  return api<AuditPage>(`/api/admin/audit?${query}`);
}
