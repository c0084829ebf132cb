import type {
  AdminServersListResponse,
  MessageResponse,
  MonitorResponse,
  RconCheckResponse,
  ServerBodyInput,
  ServerLinkResponse,
  ServerLinkSettingsBody,
  ServerSaveResponse,
  ServersListResponse,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

/** Every servers query starts with this key, so one invalidation refreshes the public and admin lists. */
export const SERVERS_KEY = ['servers'] as const;
export const SERVERS_PUBLIC_KEY = ['servers', 'public'] as const;
export const SERVERS_ADMIN_KEY = ['servers', 'admin'] as const;
/** The admin screen asks for fresh statuses this often while it is open (spec §9). */
export const ADMIN_MONITOR_MS = 300_000;

export const fetchServers = () => api<ServersListResponse>('/api/servers/');
export const fetchAdminServers = () => api<AdminServersListResponse>('/api/servers/admin');
export const runMonitor = () => api<MonitorResponse>('/api/servers/monitor', { method: 'POST' });
export const createServer = (body: ServerBodyInput) => api<ServerSaveResponse>('/api/servers/', { method: 'POST', body });
export const updateServer = (id: number, body: ServerBodyInput) => api<ServerSaveResponse>(`/api/servers/${id}`, { method: 'PUT', body });
export const deleteServer = (id: number) => api<MessageResponse>(`/api/servers/${id}`, { method: 'DELETE' });
/** «Проверить RCON»: the form's settings (a saved server's stored ones for what is left empty). */
export const checkRcon = (body: {
  server_id?: number;
  ip_address: string;
  rcon_host: string | null;
  rcon_port: number | null;
  rcon_password: string;
}) => api<RconCheckResponse>('/api/servers/rcon-check', { method: 'POST', body });

/** `host` for the default port, `host:port` otherwise; IPv6 in brackets. */
export function serverAddress(host: string, port: number): string {
  if (!host) return '';
  const h = host.includes(':') ? `[${host}]` : host;
  return port === 25565 ? h : `${h}:${port}`;
}

/** «Подключить плагин»: a new AzLink key (shown once) and the command to paste; a new call replaces the key. */
export const linkPlugin = (id: number) => api<ServerLinkResponse>(`/api/servers/${id}/link`, { method: 'POST' });
/** «Отключить»: the key stops working, deliveries go back to RCON. */
export const unlinkPlugin = (id: number) => api<ServerSaveResponse>(`/api/servers/${id}/link`, { method: 'DELETE' });
export const savePluginSettings = (id: number, body: ServerLinkSettingsBody) =>
  api<ServerSaveResponse>(`/api/servers/${id}/link`, { method: 'PUT', body });
/** The owner's switch: in-game registrations and changes through the plugin make or update site accounts. */
export const savePluginAccounts = (id: number, enabled: boolean) =>
  api<ServerSaveResponse>(`/api/servers/${id}/link/accounts`, { method: 'PUT', body: { enabled } });
