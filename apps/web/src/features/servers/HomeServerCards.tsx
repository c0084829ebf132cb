import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { plural } from '../../lib/format.ts';
import { fetchServers, SERVERS_PUBLIC_KEY, serverAddress } from './api.ts';
import './servers.css';

/**
 * The home page's status cards: each server's state, players online out of its maximum and the
 * heads of the players its status reply lists (vanilla shows up to 12, picked at random).
 */
export default function HomeServerCards() {
  const list = useQuery({ queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers, refetchInterval: 60_000 });
  const servers = list.data?.servers ?? [];
  if (servers.length === 0) return null;
  return (
    <section aria-labelledby="home-servers-h" className="stack">
      <h2 id="home-servers-h">Серверы</h2>
      <ul className="srv-mini-grid" data-testid="home-servers">
        {servers.map((s) => {
          const online = s.status === 'online';
          const address = serverAddress(s.ip_address, s.port);
          return (
            <li key={s.id} className="srv-mini">
              <div className="srv-mini-head">
                {s.favicon_url ? <img src={s.favicon_url} alt="" width={32} height={32} className="srv-mini-icon" /> : null}
                <strong className="srv-mini-name">{s.name}</strong>
                <span className={`srv-dot ${online ? 'srv-dot-online' : 'srv-dot-offline'}`} aria-hidden="true" />
                <span className="srv-mini-state">{online ? 'Онлайн' : 'Оффлайн'}</span>
              </div>
              {online && (
                <p className="srv-mini-count">
                  {s.online} из {s.max_online} {plural(s.max_online, ['игрока', 'игроков', 'игроков'])}
                </p>
              )}
              {address && <p className="srv-mini-address">{address}</p>}
              {online && s.players.length > 0 && (
                <ul className="srv-mini-heads" aria-label="Сейчас в игре">
                  {s.players.map((name) => (
                    <li key={name} title={name}>
                      <img src={`/api/user/${encodeURIComponent(name)}/head?size=24`} alt={name} width={24} height={24} loading="lazy" />
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      <Link to="/servers">Все серверы и графики онлайна</Link>
    </section>
  );
}
