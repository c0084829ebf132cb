import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { plural } from '../../lib/format.ts';
import { fetchServers, SERVERS_PUBLIC_KEY } from './api.ts';
import './servers.css';

/**
 * The total players online over all servers, for the home page; nothing without servers. While
 * the list loads, an invisible copy (hidden from readers and the keyboard too) holds its place,
 * so the news below does not jump when it arrives.
 */
export function TotalOnline() {
  const list = useQuery({ queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers, refetchInterval: 60_000 });
  if (list.isPending) return <Total n={0} anyOnline={false} placeholder />;
  if (!list.data || list.data.servers.length === 0) return null;
  return <Total n={list.data.total_online} anyOnline={list.data.servers.some((s) => s.status === 'online')} />;
}

function Total({ n, anyOnline, placeholder = false }: { n: number; anyOnline: boolean; placeholder?: boolean }) {
  return (
    <p
      className="srv-total"
      data-testid={placeholder ? undefined : 'total-online'}
      style={placeholder ? { visibility: 'hidden' } : undefined}
    >
      <span className={`srv-dot ${anyOnline ? 'srv-dot-online' : 'srv-dot-offline'}`} aria-hidden="true" />
      <span>
        Сейчас {plural(n, ['играет', 'играют', 'играют'])}: <strong>{n}</strong> {plural(n, ['игрок', 'игрока', 'игроков'])}
      </span>
      <Link to="/servers">Серверы</Link>
    </p>
  );
}
