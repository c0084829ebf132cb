import { PUBLIC_BAN_KIND_TEXT, PUBLIC_BAN_KINDS, type PublicBan, type PublicBanKind } from '@kubik/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { Pager } from '../../components/Pager.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { appealLink } from './appeal-link.ts';
import { bansKey, fetchBans } from './api.ts';
import './bans.css';

const NAME_RE = /^[A-Za-z0-9_]{0,16}$/;

/** /bans: who was punished, why, by whom and for how long — the site's bans and the game plugin's. */
export default function BansPage() {
  useTitle('Наказания');
  const { user } = useAuth();
  const [params, setParams] = useSearchParams();
  const kind = (PUBLIC_BAN_KINDS as readonly string[]).includes(params.get('kind') ?? '') ? (params.get('kind') as PublicBanKind) : 'ban';
  const q = NAME_RE.test(params.get('q') ?? '') ? (params.get('q') ?? '') : '';
  const page = Math.max(1, Math.min(500, Number(params.get('page')) || 1));
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  const set = (next: { kind?: string; q?: string; page?: number }) =>
    setParams(
      (prev) => {
        const p = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(next)) {
          if (v === undefined) continue;
          if (v === '' || (k === 'page' && v === 1) || (k === 'kind' && v === 'ban')) p.delete(k);
          else p.set(k, String(v));
        }
        return p;
      },
      { replace: true },
    );
  const filter = { kind, q, page };
  const list = useQuery({ queryKey: bansKey(filter), queryFn: () => fetchBans(filter), placeholderData: keepPreviousData });
  const kinds = list.data?.kinds ?? ['ban'];
  const typedOk = NAME_RE.test(typed);

  return (
    <div className="stack bans-page">
      <h1>Наказания</h1>
      {kinds.length > 1 && (
        <div className="bans-kinds" role="group" aria-label="Вид наказания">
          {kinds.map((k) => (
            <button
              key={k}
              type="button"
              className={`btn btn-small${k === kind ? ' btn-primary' : ''}`}
              aria-pressed={k === kind}
              onClick={() => set({ kind: k, page: 1 })}
            >
              {PUBLIC_BAN_KIND_TEXT[k]}
            </button>
          ))}
        </div>
      )}
      <form
        className="bans-search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (typedOk) set({ q: typed.trim(), page: 1 });
        }}
      >
        <label htmlFor="bans-q" className="visually-hidden">
          Имя игрока
        </label>
        <input
          id="bans-q"
          className="input"
          type="search"
          value={typed}
          maxLength={16}
          placeholder="Имя игрока"
          autoComplete="off"
          aria-invalid={!typedOk}
          aria-describedby={typedOk ? undefined : 'bans-q-error'}
          onChange={(e) => setTyped(e.target.value.trim())}
        />
        <button type="submit" className="btn" disabled={!typedOk}>
          Найти
        </button>
        {!typedOk && (
          <p id="bans-q-error" className="field-error">
            Имя игрока — латинские буквы, цифры и «_», до 16 символов
          </p>
        )}
      </form>
      <QueryState
        query={list}
        error="Не удалось загрузить список наказаний"
        empty={q ? `Игрок «${q}» не найден среди наказанных` : 'Наказаний пока нет'}
        isEmpty={(d) => d.items.length === 0}
      >
        {(data) => (
          <>
            <ul className="bans-list" aria-label={PUBLIC_BAN_KIND_TEXT[data.kind]}>
              {data.items.map((b, i) => (
                <BanRow key={`${b.source}-${b.since}-${b.username}-${i}`} ban={b} appeal={appealLink(b, user?.username ?? null)} />
              ))}
            </ul>
            <Pager page={data.page} pages={data.pages} onPage={(p) => set({ page: p })} label="Страницы списка наказаний" />
            {data.pages >= 500 && <p className="muted">Более ранние наказания найдите по имени игрока.</p>}
          </>
        )}
      </QueryState>
    </div>
  );
}

function term(b: PublicBan): string {
  if (b.kind === 'kick' || b.kind === 'warning') return '';
  if (b.until === null) return 'навсегда';
  return `до ${formatDateTime(b.until)}`;
}

function BanRow({ ban: b, appeal }: { ban: PublicBan; appeal: string | null }) {
  const t = term(b);
  return (
    <li className="card bans-item">
      <div className="bans-item-head">
        <Link to={`/u/${encodeURIComponent(b.username)}`} className="bans-name">
          {b.username}
        </Link>
        <span className={`badge ${b.active ? 'badge-danger' : 'badge-neutral'}`}>
          {b.kind === 'kick' || b.kind === 'warning' ? (b.kind === 'kick' ? 'Кик' : 'Предупреждение') : b.active ? 'Действует' : 'Снят'}
        </span>
      </div>
      <p className="bans-reason">{b.reason || <span className="muted">Причина не указана</span>}</p>
      <p className="bans-meta muted">
        {formatDateTime(b.since)}
        {t && ` · ${t}`}
        {b.by && ` · выдал ${b.by}`}
        {b.server && ` · сервер ${b.server}`}
      </p>
      {appeal && (
        <Link to={appeal} className="btn btn-small">
          Обжаловать
        </Link>
      )}
    </li>
  );
}
