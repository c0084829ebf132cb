import type { AdminServer } from '@kubik/contract';
import { describe, expect, it } from 'vitest';
import { pluginStatus } from './plugin-status.ts';

const link = (over: Partial<AdminServer['link']>): AdminServer =>
  ({
    link: {
      linked: true,
      linked_at: 1,
      last_call_at: null,
      online: false,
      platform: null,
      platform_name: null,
      platform_version: null,
      plugin_version: null,
      players: [],
      tps: null,
      ram_mb: null,
      cpu_percent: null,
      instant_ping: false,
      ping_port: 25588,
      game_accounts: false,
      ...over,
    },
  }) as AdminServer;

describe('the AzLink status line', () => {
  it('says whether the plugin is linked, has called and reports now, with its platform and version', () => {
    expect(pluginStatus(link({ linked: false }))).toBe('Не подключён');
    expect(pluginStatus(link({}))).toBe('Ждём первого вызова плагина');
    expect(pluginStatus(link({ last_call_at: Date.now(), online: true, platform: 'BUKKIT', plugin_version: '1.3.7' }))).toBe(
      'На связи · Bukkit/Spigot/Paper, AzLink 1.3.7',
    );
    expect(pluginStatus(link({ last_call_at: Date.now(), online: true, platform: 'VELOCITY', platform_name: 'Velocity' }))).toBe(
      'На связи · Velocity',
    );
    expect(pluginStatus(link({ last_call_at: Date.UTC(2026, 0, 2, 10, 0), online: false }))).toMatch(/^Нет связи с /);
  });
});
