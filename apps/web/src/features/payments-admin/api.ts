import {
  PAYMENT_PROVIDERS,
  PAYMENT_STATUSES,
  type AdminPaymentDetail,
  type AdminPaymentPage,
  type AdminPaymentSettings,
  type PaymentOptions,
  type PaymentProvider,
  type PaymentSettingsBody,
  type PaymentStatus,
  type RefundResponse,
} from '@kubik/contract';
import { type AdminPaymentProvider, type ProviderCheckResult, type ProviderUpdateBody } from '@kubik/contract/payment-connections';
import { api } from '../../lib/api.ts';

export const ADMIN_PAYMENTS_KEY = ['admin', 'payments'] as const;
export const ADMIN_PAYMENT_SETTINGS_KEY = ['admin', 'payment-settings'] as const;

/** The screen's filters as typed: dates are the owner's own calendar days (YYYY-MM-DD), both included. */
export interface PaymentFilters {
  status: PaymentStatus | '';
  provider: PaymentProvider | '';
  player: string;
  from: string;
  to: string;
}

export const NO_FILTERS: PaymentFilters = { status: '', provider: '', player: '', from: '', to: '' };

/** Filters a link may carry: /admin/payments?player=Steve&status=succeeded&from=2026-11-01&to=2026-11-30. */
export function filtersFromSearch(search: string): PaymentFilters {
  const q = new URLSearchParams(search);
  const day = (v: string | null) => (v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : '');
  const status = q.get('status') ?? '';
  const provider = q.get('provider') ?? '';
  const player = q.get('player') ?? '';
  const filters: PaymentFilters = {
    status: (PAYMENT_STATUSES as readonly string[]).includes(status) ? (status as PaymentStatus) : '',
    provider: (PAYMENT_PROVIDERS as readonly string[]).includes(provider) ? (provider as PaymentProvider) : '',
    player: /^[A-Za-z0-9_]{1,16}$/.test(player) ? player : '',
    from: day(q.get('from')),
    to: day(q.get('to')),
  };
  return Object.values(filters).some((v) => v !== '') ? filters : NO_FILTERS;
}

/** Local midnight of a YYYY-MM-DD day, in ms; `next` gives the following day's (the API's `to` is exclusive). */
function midnight(day: string, next = false): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  return String(new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (next ? 1 : 0)).getTime());
}

export function filterParams(f: PaymentFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.status) q.set('status', f.status);
  if (f.provider) q.set('provider', f.provider);
  if (f.player.trim()) q.set('player', f.player.trim());
  const from = midnight(f.from);
  const to = midnight(f.to, true);
  if (from) q.set('from', from);
  if (to) q.set('to', to);
  return q;
}

export function fetchPayments(f: PaymentFilters, page: number, perPage: number): Promise<AdminPaymentPage> {
  const q = filterParams(f);
  q.set('page', String(page));
  q.set('per_page', String(perPage));
  return api<AdminPaymentPage>(`/api/admin/payments?${q}`);
}

/** The CSV of the same filter, its dates in the browser's time zone. */
export function csvUrl(f: PaymentFilters): string {
  const q = filterParams(f);
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (tz && /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) q.set('tz', tz);
  return `/api/admin/payments.csv?${q}`;
}

export const fetchPayment = (id: string) => api<AdminPaymentDetail>(`/api/admin/payments/${encodeURIComponent(id)}`);
/** A refund of `amount` roubles to the card (all that is left when absent). */
export const refundPayment = (id: string, amount?: number) =>
  api<RefundResponse>(`/api/admin/payments/${encodeURIComponent(id)}/refund`, {
    method: 'POST',
    body: amount === undefined ? {} : { amount },
  });

export const ADMIN_PROVIDERS_KEY = ['admin', 'payment-providers'] as const;
export const fetchProviders = () => api<AdminPaymentProvider[]>('/api/admin/payment-providers');
export const saveProvider = (id: string, body: ProviderUpdateBody) =>
  api<AdminPaymentProvider[]>(`/api/admin/payment-providers/${encodeURIComponent(id)}`, { method: 'PUT', body });
export const checkProvider = (id: string) =>
  api<ProviderCheckResult>(`/api/admin/payment-providers/${encodeURIComponent(id)}/check`, { method: 'POST' });
/** The connected providers (the filter offers only these). */
export const fetchConnected = () => api<PaymentOptions>('/api/payments/options');
export const fetchPaymentSettings = () => api<AdminPaymentSettings>('/api/admin/payment-settings');
export const savePaymentSettings = (body: PaymentSettingsBody) =>
  api<AdminPaymentSettings>('/api/admin/payment-settings', { method: 'PUT', body });
