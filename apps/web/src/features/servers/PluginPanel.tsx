import { AZLINK_DEFAULT_PING_PORT, type AdminServer, type ServerLinkResponse, type ServerLinkSettingsBody } from '@kubik/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../lib/api.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { pluginStatus } from './plugin-status.ts';
import { linkPlugin, savePluginAccounts, savePluginSettings, SERVERS_KEY, unlinkPlugin } from './api.ts';

const reason = (err: unknown, base: string) => (err instanceof ApiError && err.message ? `${base}: ${err.message}` : base);

/**
 * The AzLink plugin of one server: «Подключить плагин» shows the key and the command once,
 * «Отключить» removes it; which way deliveries go when RCON exists too; the instant ping.
 */
export function PluginPanel({ server: s }: { server: AdminServer }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [shown, setShown] = useState<ServerLinkResponse | null>(null);
  const [port, setPort] = useState(String(s.link.ping_port));
  const refresh = () => queryClient.invalidateQueries({ queryKey: SERVERS_KEY });
  const link = useMutation({
    mutationFn: () => linkPlugin(s.id),
    onSuccess: (res) => {
      setShown(res);
      void refresh();
    },
    onError: (err) => notify('danger', reason(err, 'Не удалось подключить плагин')),
  });
  const unlink = useMutation({
    mutationFn: () => unlinkPlugin(s.id),
    onSuccess: (res) => {
      setShown(null);
      notify('success', res.message);
      void refresh();
    },
    onError: (err) => notify('danger', reason(err, 'Не удалось отключить плагин')),
  });
  const settings = useMutation({
    mutationFn: (body: ServerLinkSettingsBody) => savePluginSettings(s.id, body),
    onSuccess: (res) => {
      notify('success', res.message);
      void refresh();
    },
    onError: (err) => notify('danger', reason(err, 'Настройки не сохранены')),
  });
  const accounts = useMutation({
    mutationFn: (enabled: boolean) => savePluginAccounts(s.id, enabled),
    onSuccess: (res) => {
      notify('success', res.message);
      void refresh();
    },
    onError: (err) => notify('danger', reason(err, 'Настройка не сохранена (её меняет только владелец)')),
  });
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      notify('success', 'Команда скопирована');
    } catch {
      notify('danger', 'Не удалось скопировать: выделите команду и скопируйте её');
    }
  };
  const l = s.link;
  const busy = link.isPending || unlink.isPending || settings.isPending || accounts.isPending;

  return (
    <div className="plugin-panel" data-testid="plugin-panel">
      <p className="plugin-status" role="status">
        Плагин AzLink: {pluginStatus(s)}
        {l.linked && l.online && (
          <span className="muted">
            {' '}
            · игроков {s.online}
            {l.tps !== null && ` · TPS ${l.tps}`}
            {l.ram_mb !== null && ` · RAM ${Math.round(l.ram_mb)} МБ`}
            {l.cpu_percent !== null && ` · CPU ${l.cpu_percent}%`}
          </span>
        )}
      </p>
      {shown && (
        <div className="notice notice-success plugin-command">
          <p>Выполните в консоли сервера (ключ показывается один раз):</p>
          <input
            className="input"
            readOnly
            value={shown.command}
            aria-label="Команда подключения"
            onFocus={(e) => e.currentTarget.select()}
          />
          <button type="button" className="btn" onClick={() => void copy(shown.command)}>
            Копировать
          </button>
        </div>
      )}
      <div className="plugin-actions">
        <button type="button" className="btn btn-primary" disabled={busy} onClick={() => link.mutate()}>
          {l.linked ? 'Новый ключ' : 'Подключить плагин'}
        </button>
        {l.linked && (
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => unlink.mutate()}>
            Отключить
          </button>
        )}
      </div>
      {l.linked && (
        <div className="plugin-settings">
          {s.rcon_configured && (
            <label className="field">
              <span>Выдача покупок</span>
              <select
                className="input"
                value={s.delivery_channel}
                disabled={busy}
                onChange={(e) => settings.mutate({ delivery_channel: e.currentTarget.value as 'rcon' | 'plugin' })}
              >
                <option value="rcon">Через RCON</option>
                <option value="plugin">Через плагин</option>
              </select>
            </label>
          )}
          <label className="checkbox">
            <input
              type="checkbox"
              checked={l.instant_ping}
              disabled={busy}
              onChange={(e) => settings.mutate({ instant_ping: e.currentTarget.checked })}
            />{' '}
            Мгновенная выдача: после покупки сайт просит плагин забрать команды сразу
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={l.game_accounts} disabled={busy} onChange={(e) => accounts.mutate(e.currentTarget.checked)} />{' '}
            Аккаунты из игры: регистрация и смена пароля в AuthMe/nLogin создают и меняют аккаунт сайта (кроме сотрудников; только владелец)
          </label>
          {l.instant_ping && (
            <form
              className="plugin-port"
              onSubmit={(e) => {
                e.preventDefault();
                const n = Number(port);
                settings.mutate({ ping_port: port.trim() === '' ? null : n });
              }}
            >
              <label className="field">
                <span>Порт плагина (по умолчанию {AZLINK_DEFAULT_PING_PORT})</span>
                <input className="input" inputMode="numeric" value={port} onChange={(e) => setPort(e.currentTarget.value)} />
              </label>
              <button type="submit" className="btn" disabled={busy}>
                Сохранить порт
              </button>
            </form>
          )}
        </div>
      )}
    </div>
  );
}
