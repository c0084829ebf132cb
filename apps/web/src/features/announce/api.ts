import type { AnnounceSettingsBody, AnnounceSettingsView, AnnounceTestBody, AnnounceTestResult } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ANNOUNCE_KEY = ['admin', 'announcements'] as const;
export const fetchAnnounce = () => api<AnnounceSettingsView>('/api/admin/announcements');
export const saveAnnounce = (body: AnnounceSettingsBody) => api<AnnounceSettingsView>('/api/admin/announcements', { method: 'PUT', body });
export const testAnnounce = (body: AnnounceTestBody) => api<AnnounceTestResult>('/api/admin/announcements/test', { method: 'POST', body });
