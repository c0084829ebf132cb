import type { GameLoginInfo, GameLoginSettingsBody } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const GAME_LOGIN_KEY = ['game-login'] as const;
export const fetchGameLogin = () => api<GameLoginInfo>('/api/game-login');
export const saveGameLogin = (body: GameLoginSettingsBody) => api<GameLoginInfo>('/api/admin/game-login', { method: 'PUT', body });
