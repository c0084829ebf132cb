import type { AdminUser, AdminUserUpdateBody, MessageResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ADMIN_USERS_KEY = ['admin', 'users'] as const;

export const fetchUsers = () => api<AdminUser[]>('/api/user/all');
export const updateUser = (id: number, body: AdminUserUpdateBody) => api<AdminUser>(`/api/user/${id}`, { method: 'PUT', body });
export const deleteUser = (id: number) => api<MessageResponse>(`/api/user/${id}`, { method: 'DELETE' });

