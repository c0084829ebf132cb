import type { PromoCodeAdmin, PromoCodeBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const PROMO_KEY = ['admin', 'promo-codes'] as const;

export const fetchPromos = () => api<PromoCodeAdmin[]>('/api/admin/promo-codes');
export const createPromo = (body: PromoCodeBody) => api<PromoCodeAdmin>('/api/admin/promo-codes', { method: 'POST', body });
export const updatePromo = (id: number, body: PromoCodeBody) =>
  api<PromoCodeAdmin>(`/api/admin/promo-codes/${id}`, { method: 'PUT', body });
export const disablePromo = (id: number, disabled: boolean) =>
  api<PromoCodeAdmin>(`/api/admin/promo-codes/${id}/disable`, { method: 'POST', body: { disabled } });
