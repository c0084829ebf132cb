import type { CreatePaymentBody, PaymentCreated, PaymentOptions, PlayerPayment } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const PAYMENT_OPTIONS_KEY = ['payments', 'options'] as const;
export const MY_PAYMENTS_KEY = ['payments', 'mine'] as const;
export const paymentKey = (id: string) => ['payments', 'one', id] as const;

/** The configured providers, the bounds, the presets and the owner's bonus rules. */
export const fetchPaymentOptions = () => api<PaymentOptions>('/api/payments/options');
/** Creates the payment at the provider; the answer's confirmation_url is where the player pays. */
export const createPayment = (body: CreatePaymentBody) => api<PaymentCreated>('/api/payments', { method: 'POST', body });
/** The player's payments, newest first. */
export const fetchMyPayments = () => api<PlayerPayment[]>('/api/payments');
/** One payment; a pending one is re-read from the provider by the server first. */
export const fetchPayment = (id: string) => api<PlayerPayment>(`/api/payments/${encodeURIComponent(id)}`);
