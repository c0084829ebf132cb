import type { UserHistoryResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const historyKey = (page: number, kind: string) => ['history', page, kind] as const;

/** GET /api/user/history: one page of the player's balance movements, optionally of one kind. */
export const fetchHistory = (page: number, kind: string) => {
  const q = new URLSearchParams({ page: String(page) });
  if (kind) q.set('kind', kind);
  return api<UserHistoryResponse>(`/api/user/history?${q}`);
};
