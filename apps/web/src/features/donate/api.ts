import type { DonateBody, DonateTier, MessageResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';
import { formatNumber, formatRub } from '../../lib/format.ts';

export const DONATE_KEY = ['donate'] as const;

export const fetchTiers = () => api<DonateTier[]>('/api/donate/fully');
export const createTier = (body: DonateBody) => api<DonateTier>('/api/donate/add', { method: 'POST', body });
export const updateTier = (id: number, body: DonateBody) => api<DonateTier>(`/api/donate/${id}`, { method: 'PUT', body });
export const deleteTier = (id: number) => api<MessageResponse>(`/api/donate/${id}`, { method: 'DELETE' });

// Spec §9; the web app imports only types from the contract, so zod stays out of its bundle.
export const DEFAULT_KIT_PERIOD_DAYS = 7;

const ROUBLES = new Set(['₽', 'руб', 'руб.', 'rub', 'rur', 'р', 'р.']);

/** `299 ₽ / мес.`; another currency is written after the number as the admin typed it. */
export function formatPrice(amount: number, currency: string): string {
  const price = ROUBLES.has(currency.trim().toLowerCase()) ? formatRub(amount) : `${formatNumber(amount)}\u00a0${currency.trim()}`;
  return `${price} / мес.`;
}
