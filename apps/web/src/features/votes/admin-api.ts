import type { AdminVoteSite, ServersListResponse, VotePrizesBody, VoteSiteBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ADMIN_VOTE_SITES_KEY = ['admin', 'vote-sites'] as const;
export const ADMIN_VOTE_PRIZES_KEY = ['admin', 'vote-prizes'] as const;
/** The player's page's data (api.ts), made stale by the owner's changes; repeated here so the admin chunk does not share a file with the page. */
export const PLAYER_VOTES_KEY = ['votes'] as const;

export const fetchVoteSites = () => api<AdminVoteSite[]>('/api/admin/vote-sites');
export const createVoteSite = (body: VoteSiteBody) => api<AdminVoteSite>('/api/admin/vote-sites', { method: 'POST', body });
export const updateVoteSite = (id: number, body: VoteSiteBody) =>
  api<AdminVoteSite>(`/api/admin/vote-sites/${id}`, { method: 'PUT', body });
export const disableVoteSite = (id: number) => api<{ message: string }>(`/api/admin/vote-sites/${id}`, { method: 'DELETE' });
export const fetchVotePrizes = () => api<VotePrizesBody>('/api/admin/vote-prizes');
export const saveVotePrizes = (body: VotePrizesBody) => api<VotePrizesBody>('/api/admin/vote-prizes', { method: 'PUT', body });

/** The site's servers (the public list: a votes-only role may lack the servers permission), for a vote site's reward servers. */
export const VOTE_SERVERS_KEY = ['servers', 'for-votes'] as const;
export const fetchVoteServers = () => api<ServersListResponse>('/api/servers/');
