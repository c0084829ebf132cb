import { TelegramAuthBody } from '@kubik/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { ME_KEY } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { LINKS_KEY, telegramLink, telegramLogin } from './api.ts';

/** The fields oauth.telegram.org hands back in `#tgAuthResult=` (base64 JSON), or null. */
function resultOf(hash: string): TelegramAuthBody | null {
  const m = /tgAuthResult=([A-Za-z0-9_+/=-]+)/.exec(hash);
  if (!m) return null;
  try {
    const json: unknown = JSON.parse(atob(m[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    const parsed = TelegramAuthBody.safeParse(json);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** /login/telegram: where Telegram's login sends the player back; logs in (or, with ?link=1, links). */
export default function TelegramReturnPage() {
  useTitle('Вход через Telegram');
  const [params] = useSearchParams();
  const link = params.get('link') === '1';
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const data = resultOf(window.location.hash);
    // The signed data is not kept in the address bar or the history.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    if (!data) return setError('Telegram не передал данные входа. Попробуйте ещё раз.');
    void (async () => {
      try {
        if (link) {
          await telegramLink(data);
          await queryClient.invalidateQueries({ queryKey: LINKS_KEY });
          navigate('/profile?tab=settings&social=linked', { replace: true });
          return;
        }
        const result = await telegramLogin(data);
        if (result.status === 'signed_in') {
          await queryClient.invalidateQueries({ queryKey: ME_KEY });
          navigate('/profile', { replace: true });
        } else navigate('/login/social', { replace: true });
      } catch (err) {
        setError(err instanceof ApiError && err.message ? err.message : 'Не удалось войти через Telegram. Попробуйте ещё раз.');
      }
    })();
  }, [link, navigate, queryClient]);

  if (!error) return <Loading text="Входим через Telegram…" />;
  return (
    <section className="card card-narrow">
      <h1>Вход через Telegram</h1>
      <div className="notice notice-danger" role="alert">
        <p>{error}</p>
      </div>
      <p>{link ? <Link to="/profile?tab=settings">В настройки</Link> : <Link to="/login">Ко входу</Link>}</p>
    </section>
  );
}
