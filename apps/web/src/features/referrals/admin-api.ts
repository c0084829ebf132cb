import type { AdminReferralRewards, ReferralSettingsBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

// Apart from api.ts (the profile's), so the admin screen and the profile do not share a chunk: every chunk's name is on the first page.
export const ADMIN_REFERRAL_SETTINGS_KEY = ['admin', 'referral-settings'] as const;
export const fetchReferralSettings = () => api<ReferralSettingsBody>('/api/admin/referral-settings');
export const saveReferralSettings = (body: ReferralSettingsBody) =>
  api<ReferralSettingsBody>('/api/admin/referral-settings', { method: 'PUT', body });
export const ADMIN_REFERRAL_REWARDS_KEY = ['admin', 'referral-rewards'] as const;
export const fetchReferralRewards = () => api<AdminReferralRewards>('/api/admin/referral-rewards');
