import type { AdminUserPage, StaffRole, StaffRoleBody, StaffRoleList } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ROLES_KEY = ['admin', 'roles'] as const;

export const fetchRoles = () => api<StaffRoleList>('/api/admin/roles');
export const createRole = (body: StaffRoleBody) => api<StaffRole>('/api/admin/roles', { method: 'POST', body });
export const updateRole = (id: number, body: StaffRoleBody) => api<StaffRole>(`/api/admin/roles/${id}`, { method: 'PUT', body });
export const deleteRole = (id: number) => api<{ message: string }>(`/api/admin/roles/${id}`, { method: 'DELETE' });
export const setUserRole = (userId: number, roleId: number | null) =>
  api<{ id: number; username: string; role: string | null }>(`/api/admin/users/${userId}/role`, {
    method: 'PUT',
    body: { role_id: roleId },
  });
export const findUsers = (q: string) => api<AdminUserPage>(`/api/user/all?q=${encodeURIComponent(q)}&per_page=10`);
