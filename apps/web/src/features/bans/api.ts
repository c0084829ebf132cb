import type { PublicBanKind, PublicBansPage } from '@kubik/contract';
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
