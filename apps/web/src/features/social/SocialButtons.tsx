import { SOCIAL_PROVIDER_TITLES } from '@kubik/contract/social-providers';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'wouter';
import { errorText, fetchProviders, PROVIDERS_KEY, startPath, telegramAuthUrl } from './api.ts';
import './social.css';

/**
 * «Войти через …» under the login and registration forms: only providers whose keys are set.
 * VK ID and Discord are plain links (the server starts the redirect); Telegram goes to
 * oauth.telegram.org, which brings the player back to /login/telegram.
 */
export function SocialButtons({ title = 'Или войдите через' }: { title?: string }) {
  const query = useQuery({ queryKey: PROVIDERS_KEY, queryFn: fetchProviders, staleTime: 60_000 });
  const [params] = useSearchParams();
  const error = params.get('social_error');
  const data = query.data;
  if (!data || data.providers.length === 0) {
    return error ? <SocialError code={error} /> : null;
  }
  return (
    <section className="card card-narrow social-login" aria-labelledby="social-login-h">
      {error && <SocialError code={error} />}
      <h2 id="social-login-h">{title}</h2>
      <div className="social-buttons">
        {data.providers.map((p) =>
          p === 'telegram' && data.telegram ? (
            <a key={p} className={`btn social-btn social-${p}`} href={telegramAuthUrl(data.telegram, false)}>
              {SOCIAL_PROVIDER_TITLES[p]}
            </a>
          ) : p !== 'telegram' ? (
            <a key={p} className={`btn social-btn social-${p}`} href={startPath(p)}>
              {SOCIAL_PROVIDER_TITLES[p]}
            </a>
          ) : null,
        )}
      </div>
      <p className="muted">Новый игрок? После входа через соцсеть мы спросим имя в игре и почту.</p>
    </section>
  );
}

function SocialError({ code }: { code: string }) {
  return (
    <div className="notice notice-danger" role="alert" data-testid="social-error">
      <p>{errorText(code)}</p>
    </div>
  );
}
