import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { plural } from '../../lib/format.ts';
import { fetchServers, SERVERS_PUBLIC_KEY } from './api.ts';
import './servers.css';

/** The total players online over all servers, for the home page; nothing while loading or without servers. */
export function TotalOnline() {
  const list = useQuery({ queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers, refetchInterval: 60_000 });
  if (!list.data || list.data.servers.length === 0) return null;
  const n = list.data.total_online;
  const anyOnline = list.data.servers.some((s) => s.status === 'online');
  return (
    <p className="srv-total" data-testid="total-online">
      <span className={`srv-dot ${anyOnline ? 'srv-dot-online' : 'srv-dot-offline'}`} aria-hidden="true" />
      <span>
        Сейчас {plural(n, ['играет', 'играют', 'играют'])}: <strong>{n}</strong> {plural(n, ['игрок', 'игрока', 'игроков'])}
      </span>
      <Link to="/servers">Серверы</Link>
    </p>
  );
}
