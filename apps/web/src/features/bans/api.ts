import type { BanSourceBody, BanSourceCheck, BanSourceView, PublicBanKind, PublicBansPage } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export interface BansFilter {
  kind: PublicBanKind;
  q: string;
  page: number;
}

export const bansKey = (f: BansFilter) => ['bans', 'public', f] as const;

export function fetchBans(f: BansFilter): Promise<PublicBansPage> {
  const q = new URLSearchParams({ kind: f.kind, page: String(f.page) });
  if (f.q) q.set('q', f.q);
  return api<PublicBansPage>(`/api/bans?${q}`);
}

// Админ-панель → Баны на сайте: the game plugin whose punishments /bans shows.
export const BAN_SOURCE_KEY = ['admin', 'bans', 'source'] as const;
export const fetchBanSource = () => api<BanSourceView>('/api/admin/bans/source');
export const saveBanSource = (body: BanSourceBody) => api<BanSourceView>('/api/admin/bans/source', { method: 'PUT', body });
export const checkBanSource = () => api<BanSourceCheck>('/api/admin/bans/source/check', { method: 'POST' });
