import type { VotesResponse, VoteTopResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

/** The player's page; the admin screen has its own calls (admin-api.ts), so each screen's chunk carries its own. */
export const VOTES_KEY = ['votes'] as const;
export const voteTopKey = (month: string) => ['votes', 'top', month] as const;

/** The tops, when the player may vote on each again, their votes this month and the month's prizes. */
export const fetchVotes = () => api<VotesResponse>('/api/votes');
/** The month's top voters (YYYY-MM). */
export const fetchVoteTop = (month: string) => api<VoteTopResponse>(`/api/votes/top?month=${encodeURIComponent(month)}`);
