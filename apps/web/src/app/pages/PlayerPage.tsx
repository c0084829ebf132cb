import { useQuery } from '@tanstack/react-query';
import { useParams } from 'wouter';
import { Badge } from '../../components/Badge.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { fetchPlayer, playerKey } from '../../features/players/api.ts';
import '../../features/players/players.css';
import { SkinViewer } from '../../features/skins/SkinViewer.tsx';
import { formatDate, formatDateTime, plural } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';

/** /u/{name}: a player's public profile — head, the skin in 3D with the cape, privilege, dates. */
export default function PlayerPage() {
  const { name = '' } = useParams<{ name: string }>();
  const query = useQuery({ queryKey: playerKey(name), queryFn: () => fetchPlayer(name), retry: false });
  useTitle(query.data ? `Игрок ${query.data.username}` : 'Игрок');
  return (
    <div className="stack">
      <QueryState query={query} loading="Загрузка профиля..." error="Не удалось загрузить профиль игрока">
        {(p) => (
          <article className="pl-profile card" aria-labelledby="pl-profile-h">
            <header className="pl-profile-head">
              <img className="pl-avatar" src={`${p.head_url}?size=64`} alt="" width={64} height={64} />
              <div>
                <h1 id="pl-profile-h">{p.username}</h1>
                <div className="row">
                  {p.is_admin && <Badge tone="gold">Администратор</Badge>}
                  {p.tier && <Badge tone="success">{p.tier.title}</Badge>}
                  {p.ban && <Badge tone="danger">Заблокирован</Badge>}
                </div>
              </div>
            </header>
            {p.hidden ? (
              <p className="pl-hidden" data-testid="profile-hidden">
                Игрок скрыл свой профиль.
              </p>
            ) : (
              <div className="pl-profile-body">
                <div className="pl-profile-skin">
                  <SkinViewer
                    skinUrl={p.skin_url ?? `/api/user/${encodeURIComponent(p.username)}/skin.png`}
                    model={p.slim ? 'slim' : 'default'}
                    innerLayer
                    outerLayer
                    back={p.cape_url ? 'cape' : null}
                    capeUrl={p.cape_url}
                    walking
                    label={`Трёхмерный скин игрока ${p.username}`}
                  />
                </div>
                <dl className="pl-facts">
                  {p.created_at !== null && (
                    <>
                      <dt>На сайте с</dt>
                      <dd>{formatDate(p.created_at)}</dd>
                    </>
                  )}
                  <dt>Привилегия</dt>
                  <dd>{p.tier ? `${p.tier.title} до ${formatDate(p.tier.expires_at)}` : 'Нет'}</dd>
                  <dt>{p.in_game ? 'В игре' : 'Был в игре'}</dt>
                  <dd>
                    {p.in_game ? `Сейчас в игре на сервере «${p.in_game}»` : p.last_seen_at ? formatDateTime(p.last_seen_at) : 'Неизвестно'}
                  </dd>
                  {p.votes_month !== null && (
                    <>
                      <dt>Голосов в этом месяце</dt>
                      <dd>
                        {p.votes_month} {plural(p.votes_month, ['голос', 'голоса', 'голосов'])}
                      </dd>
                    </>
                  )}
                  {p.ban && (
                    <>
                      <dt>Блокировка</dt>
                      <dd>{p.ban.text}</dd>
                    </>
                  )}
                </dl>
              </div>
            )}
          </article>
        )}
      </QueryState>
    </div>
  );
}
