import type { ReferralResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const REFERRAL_KEY = ['referral', 'mine'] as const;

/** The player's link, who joined through it and what it earned. */
export const fetchReferral = () => api<ReferralResponse>('/api/user/referral');
