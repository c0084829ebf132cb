import type { AdminServer } from '@kubik/contract';
import { formatDateTime } from '../../lib/format.ts';

const PLATFORMS: Record<string, string> = {
  BUKKIT: 'Bukkit/Spigot/Paper',
  BUNGEE: 'BungeeCord',
  VELOCITY: 'Velocity',
  SPONGE: 'Sponge',
  NUKKIT: 'Nukkit',
};

/** One line for the list: whether the AzLink plugin reports, and on what. */
export function pluginStatus(s: AdminServer): string {
  const l = s.link;
  if (!l.linked) return 'Не подключён';
  if (l.last_call_at === null) return 'Ждём первого вызова плагина';
  const on = [
    l.platform_name ?? (l.platform ? (PLATFORMS[l.platform] ?? l.platform) : null),
    l.plugin_version && `AzLink ${l.plugin_version}`,
  ]
    .filter(Boolean)
    .join(', ');
  return `${l.online ? 'На связи' : `Нет связи с ${formatDateTime(l.last_call_at)}`}${on ? ` · ${on}` : ''}`;
}
