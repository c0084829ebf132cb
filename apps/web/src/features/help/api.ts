import type {
  AdminLauncher,
  GameLoginInfo,
  GameLoginSettingsBody,
  LauncherBuild,
  LauncherLinkBody,
  LauncherList,
  LauncherPlatform,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const GAME_LOGIN_KEY = ['game-login'] as const;
export const fetchGameLogin = () => api<GameLoginInfo>('/api/game-login');
export const saveGameLogin = (body: GameLoginSettingsBody) => api<GameLoginInfo>('/api/admin/game-login', { method: 'PUT', body });

export const LAUNCHER_KEY = ['launcher'] as const;
export const ADMIN_LAUNCHER_KEY = ['launcher', 'admin'] as const;
export const fetchLauncher = () => api<LauncherList>('/api/launcher');
export const fetchAdminLauncher = () => api<AdminLauncher>('/api/admin/launcher');

export function uploadLauncher(platform: LauncherPlatform, version: string, file: File): Promise<LauncherBuild> {
  const form = new FormData();
  form.append('file', file);
  return api<LauncherBuild>(`/api/admin/launcher/${platform}/file?version=${encodeURIComponent(version)}`, { method: 'POST', body: form });
}
export const linkLauncher = (platform: LauncherPlatform, body: LauncherLinkBody) =>
  api<{ message: string }>(`/api/admin/launcher/${platform}/link`, { method: 'PUT', body });
export const removeLauncher = (platform: LauncherPlatform, reset: boolean) =>
  api<{ message: string }>(`/api/admin/launcher/${platform}${reset ? '?reset=1' : ''}`, { method: 'DELETE' });
