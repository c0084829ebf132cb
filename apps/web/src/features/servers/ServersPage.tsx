import type { PublicServer } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNotify } from '../../providers/notifications.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { fetchServers, serverAddress, SERVERS_PUBLIC_KEY } from './api.ts';
import { OnlineChart } from './OnlineChart.tsx';
import './servers.css';

export default function ServersPage() {
  useTitle('Список серверов');
  const notify = useNotify();
  // The server checks every minute; the page follows without a reload.
  const list = useQuery({ queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers, refetchInterval: 60_000 });
  useEffect(() => {
    if (list.errorUpdatedAt) notify('danger', 'Ошибка загрузки серверов');
  }, [list.errorUpdatedAt, notify]);
  const servers = list.isError ? [] : (list.data?.servers ?? []);

  return (
    <section className="stack" aria-labelledby="servers-heading">
      <header className="page-head">
        <h1 id="servers-heading">Список серверов</h1>
        <p>Мониторинг наших игровых серверов: статус и онлайн обновляются автоматически каждую минуту.</p>
      </header>
      {list.isPending ? (
        <Loading text="Загрузка серверов..." />
      ) : servers.length === 0 ? (
        <Empty>{list.isError ? 'Не удалось загрузить список серверов. Попробуйте обновить страницу.' : 'Серверов пока нет'}</Empty>
      ) : (
        <ul className="srv-grid" aria-label="Серверы">
          {servers.map((s, i) => (
            <ServerCard key={s.id} server={s} index={i} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The first card's image, the page's largest paint, loads at once and first; the rest when laid out near the screen. */
const EAGER_CARDS = 1;

function ServerCard({ server, index }: { server: PublicServer; index: number }) {
  const online = server.status === 'online';
  const address = serverAddress(server.ip_address, server.port);
  const image = server.image_url || server.favicon_url;
  return (
    <li className="srv-card" data-testid="server-card" aria-labelledby={`server-${server.id}-name`}>
      <div className={`srv-card-image${server.image_url ? '' : ' srv-card-image-icon'}`}>
        {image ? (
          <img
            src={image}
            alt=""
            loading={index < EAGER_CARDS ? 'eager' : 'lazy'}
            fetchPriority={index === 0 ? 'high' : undefined}
            width={320}
            height={180}
            className={server.image_url ? undefined : 'pixelated'}
          />
        ) : (
          <span aria-hidden="true">{server.name.slice(0, 1).toUpperCase()}</span>
        )}
      </div>
      <div className="srv-card-body">
        <div className="srv-card-title">
          <span className={`srv-dot ${online ? 'srv-dot-online' : 'srv-dot-offline'}`} aria-hidden="true" />
          <h2 id={`server-${server.id}-name`}>{server.name}</h2>
        </div>
        <p className="srv-status" data-testid="server-status">
          {online ? `Онлайн: ${server.online} / ${server.max_online}` : 'Оффлайн'}
        </p>
        <p className="srv-description preline">{server.description}</p>
        {address && <CopyAddress address={address} />}
        <OnlineChart history={server.history} label={server.name} />
        {server.last_checked_at && <p className="srv-checked">Проверено {formatDateTime(server.last_checked_at)}</p>}
      </div>
    </li>
  );
}

function CopyAddress({ address }: { address: string }) {
  const notify = useNotify();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(address);
      setCopied(true);
      notify('success', 'Адрес скопирован');
      window.setTimeout(() => setCopied(false), 2000);
    } catch {
      notify('info', `Адрес сервера: ${address}`);
    }
  }
  return (
    <div className="srv-address">
      <code>{address}</code>
      <button type="button" className="btn btn-small" onClick={copy} aria-label={`Скопировать адрес ${address}`}>
        {copied ? 'Скопировано' : 'Копировать'}
      </button>
    </div>
  );
}
