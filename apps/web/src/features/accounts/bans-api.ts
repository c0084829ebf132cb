import type { BanBody, BanRecord, BanResponse, BanServerCommands, BanCommandsBody, MessageResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const BAN_COMMANDS_KEY = ['admin', 'bans', 'commands'] as const;
export const activeBanKey = (userId: number) => ['admin', 'bans', 'active', userId] as const;

export const banUser = (id: number, body: BanBody) => api<BanResponse>(`/api/admin/users/${id}/ban`, { method: 'POST', body });
/** The player's ban in force with its internal note (only the history has the note), or null. */
export const fetchActiveBan = async (userId: number) => (await api<BanRecord[]>(`/api/admin/bans?active=1&user_id=${userId}`))[0] ?? null;
export const unbanUser = (id: number) => api<MessageResponse>(`/api/admin/users/${id}/ban`, { method: 'DELETE' });
export const fetchBanCommands = () => api<BanServerCommands[]>('/api/admin/bans/commands');
export const saveBanCommands = (serverId: number, body: BanCommandsBody) =>
  api<BanServerCommands>(`/api/admin/bans/commands/${serverId}`, { method: 'PUT', body });
