import type { ReferralResponse, ReferralSettingsBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const REFERRAL_KEY = ['referral', 'mine'] as const;
export const ADMIN_REFERRAL_SETTINGS_KEY = ['admin', 'referral-settings'] as const;

/** The player's link, who joined through it and what it earned. */
export const fetchReferral = () => api<ReferralResponse>('/api/user/referral');
export const fetchReferralSettings = () => api<ReferralSettingsBody>('/api/admin/referral-settings');
export const saveReferralSettings = (body: ReferralSettingsBody) =>
  api<ReferralSettingsBody>('/api/admin/referral-settings', { method: 'PUT', body });
