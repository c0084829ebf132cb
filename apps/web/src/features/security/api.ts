import type {
  MessageResponse,
  SecuritySettingsBody,
  SessionsResponse,
  TwoFactorEnableResponse,
  TwoFactorSetupResponse,
  TwoFactorStatus,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const TWO_FACTOR_KEY = ['two-factor'] as const;
export const SESSIONS_KEY = ['sessions'] as const;
export const SECURITY_SETTINGS_KEY = ['admin', 'security'] as const;

export const fetchTwoFactor = () => api<TwoFactorStatus>('/api/user/2fa');
export const startSetup = () => api<TwoFactorSetupResponse>('/api/user/2fa/setup', { method: 'POST' });
export const enableTwoFactor = (code: string) => api<TwoFactorEnableResponse>('/api/user/2fa/enable', { method: 'POST', body: { code } });
export const disableTwoFactor = (password: string, code: string) =>
  api<MessageResponse>('/api/user/2fa/disable', { method: 'POST', body: { password, code } });

export const fetchSessions = () => api<SessionsResponse>('/api/user/sessions');
export const endSession = (id: string) =>
  api<MessageResponse & { current: boolean }>(`/api/user/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
export const endOtherSessions = () => api<MessageResponse & { ended: number }>('/api/user/sessions/revoke-all', { method: 'POST' });

export const fetchSecuritySettings = () => api<SecuritySettingsBody>('/api/admin/security');
export const saveSecuritySettings = (body: SecuritySettingsBody) =>
  api<SecuritySettingsBody>('/api/admin/security', { method: 'PUT', body });

/** Letters and the admin area link to `/profile?tab=settings#sessions`: the section is scrolled to once it has loaded. */
export function scrollToHash(id: string): void {
  if (window.location.hash === `#${id}`) document.getElementById(id)?.scrollIntoView({ block: 'start' });
}
