import type { GuestOrder, GuestOrderBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const createGuestOrder = (body: GuestOrderBody) =>
  api<GuestOrder & { known: boolean }>('/api/shop/guest-orders', { method: 'POST', body });
