import type { AdminVoteSite, VotePrizesBody, VoteSiteBody, VotesResponse, VoteTopResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const VOTES_KEY = ['votes'] as const;
export const voteTopKey = (month: string) => ['votes', 'top', month] as const;
export const ADMIN_VOTE_SITES_KEY = ['admin', 'vote-sites'] as const;
export const ADMIN_VOTE_PRIZES_KEY = ['admin', 'vote-prizes'] as const;

/** The tops, when the player may vote on each again, their votes this month and the month's prizes. */
export const fetchVotes = () => api<VotesResponse>('/api/votes');
/** The month's top voters (YYYY-MM). */
export const fetchVoteTop = (month: string) => api<VoteTopResponse>(`/api/votes/top?month=${encodeURIComponent(month)}`);

export const fetchVoteSites = () => api<AdminVoteSite[]>('/api/admin/vote-sites');
export const createVoteSite = (body: VoteSiteBody) => api<AdminVoteSite>('/api/admin/vote-sites', { method: 'POST', body });
export const updateVoteSite = (id: number, body: VoteSiteBody) =>
  api<AdminVoteSite>(`/api/admin/vote-sites/${id}`, { method: 'PUT', body });
export const disableVoteSite = (id: number) => api<{ message: string }>(`/api/admin/vote-sites/${id}`, { method: 'DELETE' });
export const fetchVotePrizes = () => api<VotePrizesBody>('/api/admin/vote-prizes');
export const saveVotePrizes = (body: VotePrizesBody) => api<VotePrizesBody>('/api/admin/vote-prizes', { method: 'PUT', body });
