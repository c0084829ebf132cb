import type { AdminSiteSettings, SiteSettingsPatch } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ADMIN_SETTINGS_KEY = ['admin', 'settings'] as const;
export const fetchAdminSettings = () => api<AdminSiteSettings>('/api/admin/settings');
export const saveSettings = (body: SiteSettingsPatch) => api<AdminSiteSettings>('/api/admin/settings', { method: 'PUT', body });
