import { SOCIAL_PROVIDER_TITLES, type SocialProvider } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'wouter';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import {
  errorText,
  fetchLinks,
  fetchProviders,
  LINKS_KEY,
  PROVIDERS_KEY,
  sendPasswordLetter,
  startLink,
  telegramAuthUrl,
  unlink,
} from './api.ts';
import './social.css';

/** Профиль → Настройки → «Вход через соцсети»: link and unlink providers. */
export function SocialLinksPanel() {
  const links = useQuery({ queryKey: LINKS_KEY, queryFn: fetchLinks });
  const providers = useQuery({ queryKey: PROVIDERS_KEY, queryFn: fetchProviders, staleTime: 60_000 });
  const queryClient = useQueryClient();
  const notify = useNotify();
  const { user } = useAuth();
  const [letter, setLetter] = useState<'idle' | 'sending' | 'sent'>('idle');
  const [params, setParams] = useSearchParams();
  const [busy, setBusy] = useState<SocialProvider | null>(null);
  const shown = useRef(false);

  useEffect(() => {
    if (shown.current) return;
    const linked = params.get('social');
    const error = params.get('social_error');
    if (!linked && !error) return;
    shown.current = true;
    if (linked === 'linked') notify('success', 'Аккаунт привязан');
    if (error) notify('danger', errorText(error));
    setParams(
      (p) => {
        p.delete('social');
        p.delete('social_error');
        return p;
      },
      { replace: true },
    );
  }, [params, setParams, notify]);

  if (links.data && links.data.providers.length === 0) return null;

  async function link(provider: SocialProvider) {
    setBusy(provider);
    try {
      if (provider === 'telegram') {
        const tg = providers.data?.telegram;
        if (tg) window.location.assign(telegramAuthUrl(tg, true));
        return;
      }
      window.location.assign((await startLink(provider)).url);
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось начать привязку');
      setBusy(null);
    }
  }

  async function passwordLetter() {
    if (!user) return;
    setLetter('sending');
    try {
      await sendPasswordLetter(user.email);
      setLetter('sent');
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось отправить письмо');
      setLetter('idle');
    }
  }

  async function remove(provider: SocialProvider) {
    setBusy(provider);
    try {
      await unlink(provider);
      notify('success', `${SOCIAL_PROVIDER_TITLES[provider]} отвязан`);
      await queryClient.invalidateQueries({ queryKey: LINKS_KEY });
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось отвязать');
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card" aria-labelledby="social-links-h" id="social">
      <h2 id="social-links-h">Вход через соцсети</h2>
      <QueryState query={links} error="Не удалось загрузить привязанные соцсети" isEmpty={() => false}>
        {(data) => (
          <>
            {!data.has_password && (
              <div className="social-password">
                <p className="muted">
                  У аккаунта нет пароля: последний привязанный сервис отвязать нельзя, а лаунчер без пароля не пустит в игру. Пришлём на
                  вашу почту ссылку, по которой можно задать пароль.
                </p>
                {letter === 'sent' ? (
                  <p role="status" data-testid="password-letter-sent">
                    Письмо отправлено на {user?.email}. Откройте ссылку из него, чтобы задать пароль.
                  </p>
                ) : (
                  <button type="button" className="btn btn-ghost" disabled={letter === 'sending'} onClick={() => void passwordLetter()}>
                    Задать пароль
                  </button>
                )}
              </div>
            )}
            <ul className="social-links">
              {data.providers.map((p) => (
                <li key={p.provider} data-testid={`social-${p.provider}`}>
                  <span>
                    <strong>{SOCIAL_PROVIDER_TITLES[p.provider]}</strong>
                    {p.linked ? <span className="muted"> — {p.linked.display_name}</span> : <span className="muted"> — не привязан</span>}
                  </span>
                  {p.linked ? (
                    <button type="button" className="btn btn-ghost" disabled={busy !== null} onClick={() => void remove(p.provider)}>
                      Отвязать
                    </button>
                  ) : (
                    <button type="button" className="btn btn-primary" disabled={busy !== null} onClick={() => void link(p.provider)}>
                      Привязать
                    </button>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </QueryState>
    </section>
  );
}
