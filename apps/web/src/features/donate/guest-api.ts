import type { GuestTierOrderBody, NewGuestOrder } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const createGuestTierOrder = (tierId: number, body: GuestTierOrderBody) =>
  api<NewGuestOrder>(`/api/donate/${tierId}/guest-orders`, { method: 'POST', body });
