import type {
  AuthMeCheckResponse,
  AuthMeImportView,
  AuthMeRefusalsResponse,
  AuthMeSettingsBody,
  AuthMeView,
  MessageResponse,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const AUTHME_KEY = ['admin', 'authme'] as const;
export const importKey = (id: number) => ['admin', 'authme', 'import', id] as const;
export const refusalsKey = (id: number) => ['admin', 'authme', 'refusals', id] as const;

export const fetchAuthMe = () => api<AuthMeView>('/api/admin/authme');
export const saveAuthMe = (body: AuthMeSettingsBody) => api<AuthMeView>('/api/admin/authme', { method: 'PUT', body });
export const checkAuthMe = () => api<AuthMeCheckResponse>('/api/admin/authme/check', { method: 'POST' });
export const clearWarnings = () => api<MessageResponse>('/api/admin/authme/warnings', { method: 'DELETE' });
export const startImport = (mode: 'dry' | 'import') =>
  api<AuthMeImportView>('/api/admin/authme/imports', { method: 'POST', body: { mode } });
export const fetchImport = (id: number) => api<AuthMeImportView>(`/api/admin/authme/imports/${id}`);
export const stopImport = (id: number) => api<AuthMeImportView>(`/api/admin/authme/imports/${id}/stop`, { method: 'POST' });
export const fetchRefusals = (id: number) => api<AuthMeRefusalsResponse>(`/api/admin/authme/imports/${id}/refusals`);
