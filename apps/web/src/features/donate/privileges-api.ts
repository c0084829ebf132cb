// Privileges: buying a tier, the player's privileges and kits, the admin's grants. A module of its
// own (not api.ts): api.ts is in the first page's bundle (app/first-page.ts reads the tiers), these
// are used only by screens loaded later.
import type {
  AdminPrivilege,
  AdminPrivilegeGrantBody,
  KitClaimResponse,
  MessageResponse,
  PrivilegeBuyBody,
  PrivilegeBuyResponse,
  PrivilegeQuote,
  ShopServersResponse,
  UserPrivilege,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';
import { plural } from '../../lib/format.ts';

export const MY_PRIVILEGES_KEY = ['privileges', 'mine'] as const;
export const ADMIN_PRIVILEGES_KEY = ['privileges', 'admin'] as const;
export const TIER_SERVERS_KEY = ['donate', 'admin', 'servers'] as const;

/**
 * The server's preview of buying a tier now (price, the credit of a replaced lower tier, the promo
 * code's discount, total, new end); as a gift, the period as a new privilege.
 */
export const quoteKey = (tierId: number, months: number, promo: string | null = null, gift = false) =>
  ['privileges', 'quote', tierId, months, promo, gift] as const;
export function fetchQuote(tierId: number, months: number, promo: string | null = null, gift = false): Promise<PrivilegeQuote> {
  const query = new URLSearchParams({ months: String(months), ...(promo ? { promo_code: promo } : {}), ...(gift ? { gift: '1' } : {}) });
  return api<PrivilegeQuote>(`/api/donate/${tierId}/quote?${query}`);
}

/** Buys with the opening's Idempotency-Key (components/PurchaseModal.tsx). */
export const buyTier = (tierId: number, body: PrivilegeBuyBody, key: string) =>
  api<PrivilegeBuyResponse>(`/api/donate/${tierId}/buy`, { method: 'POST', body, headers: { 'Idempotency-Key': key } });
export const fetchMyPrivileges = () => api<UserPrivilege[]>('/api/user/privileges');
export const claimKit = (kitId: number) => api<KitClaimResponse>(`/api/donate/kits/${kitId}/claim`, { method: 'POST' });

export const fetchAdminPrivileges = (active: boolean) => api<AdminPrivilege[]>(`/api/admin/privileges${active ? '?active=1' : ''}`);
export const grantPrivilege = (body: AdminPrivilegeGrantBody) => api<AdminPrivilege>('/api/admin/privileges', { method: 'POST', body });
export const setPrivilegeEnd = (id: number, expiresAt: number) =>
  api<AdminPrivilege>(`/api/admin/privileges/${id}`, { method: 'PUT', body: { expires_at: expiresAt } });
export const revokePrivilege = (id: number) => api<MessageResponse>(`/api/admin/privileges/${id}`, { method: 'DELETE' });
/** Game servers for the tier form (the shop's list: the same servers, with whether RCON is set). */
export const fetchTierServers = () => api<ShopServersResponse>('/api/shop/admin/servers');

/** «2 дня 3 часа», «5 минут». */
export function durationText(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const parts: string[] = [];
  if (days > 0) parts.push(`${days} ${plural(days, ['день', 'дня', 'дней'])}`);
  if (hours > 0) parts.push(`${hours} ${plural(hours, ['час', 'часа', 'часов'])}`);
  if (days === 0 && mins > 0) parts.push(`${mins} ${plural(mins, ['минуту', 'минуты', 'минут'])}`);
  return parts.slice(0, 2).join(' ');
}
