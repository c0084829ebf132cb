import type {
  ConsentKind,
  DonationGoal,
  PaymentOptions,
  SubscriptionCreated,
  SubscriptionProvider,
  UserSubscription,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const GOAL_KEY = ['donate', 'goal'] as const;
export const MY_SUBSCRIPTIONS_KEY = ['subscriptions', 'mine'] as const;

export const fetchGoal = () => api<DonationGoal>('/api/donate/goal');
export const subscribe = (tierId: number, provider: SubscriptionProvider, consents?: ConsentKind[]) =>
  api<SubscriptionCreated>(`/api/donate/${tierId}/subscribe`, { method: 'POST', body: { provider, ...(consents ? { consents } : {}) } });
export const fetchMySubscriptions = () => api<UserSubscription[]>('/api/user/subscriptions');
export const cancelSubscription = (id: string) =>
  api<UserSubscription>(`/api/user/subscriptions/${encodeURIComponent(id)}`, { method: 'DELETE' });
/** The payment options (the same request and cache key as the top-up page's). */
export const PAYMENT_OPTIONS_KEY = ['payments', 'options'] as const;
export const fetchPaymentOptions = () => api<PaymentOptions>('/api/payments/options');
