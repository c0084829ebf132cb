import { isUsefulLink } from './links.ts';
import { Link } from 'wouter';
import { useSite } from '../../providers/site.tsx';
import { formatFileSize, LAUNCHER_PLATFORM_INFO, type LauncherBuild } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { CopyText } from '../../components/CopyText.tsx';
import { fetchLauncher, LAUNCHER_KEY } from './api.ts';
import './help.css';

export { GameLoginSection } from './GameLoginSection.tsx';

/** /help: the launcher's downloads (Админ-панель → Лаунчер) and what a computer needs. */
export function LauncherSection() {
  const query = useQuery({ queryKey: LAUNCHER_KEY, queryFn: fetchLauncher });
  const builds = query.data?.builds ?? [];
  return (
    <section className="card" id="launcher" aria-labelledby="launcher-h">
      <h2 id="launcher-h">Скачать лаунчер</h2>
      <p className="muted">Лаунчер сам скачает игру, обновит её и подключит вас к серверу.</p>
      {query.isPending ? (
        <p className="muted">Загружаем ссылки…</p>
      ) : builds.length === 0 ? (
        <p className="muted">{query.isError ? 'Не удалось загрузить ссылки на лаунчер.' : 'Ссылки на лаунчер пока не опубликованы.'}</p>
      ) : (
        <ul className="launcher-builds" data-testid="launcher-builds">
          {builds.map((b, i) => (
            <LauncherBuildItem key={b.platform} build={b} primary={i === 0} />
          ))}
        </ul>
      )}
      <h3 style={{ marginTop: 'var(--space-5)' }}>Системные требования</h3>
      <ul>
        <li>Windows 10/11 64-бит, Ubuntu 20.04 и новее или macOS 11 и новее</li>
        <li>4 ГБ оперативной памяти</li>
        <li>2 ГБ свободного места на диске</li>
      </ul>
    </section>
  );
}

function LauncherBuildItem({ build, primary }: { build: LauncherBuild; primary: boolean }) {
  const info = LAUNCHER_PLATFORM_INFO[build.platform];
  return (
    <li className="launcher-build" data-platform={build.platform}>
      <a className={primary ? 'btn btn-primary' : 'btn'} href={build.url} download={build.kind === 'file' || undefined}>
        {info.label} ({info.ext}) · {build.version}
      </a>
      <span className="muted launcher-build-meta">
        {info.kind}
        {build.size !== null && <> · {formatFileSize(build.size)}</>}
      </span>
      {build.sha256 && (
        <details className="launcher-sha">
          <summary>
            SHA-256: <code>{build.sha256.slice(0, 12)}…</code>
          </summary>
          <CopyText text={build.sha256} label={`SHA-256 лаунчера для ${info.label}`} />
        </details>
      )}
    </li>
  );
}

/** /help for a logged-in player: what the personal cabinet offers. */
export function WelcomeSection({ username }: { username: string }) {
  return (
    <section className="card" aria-labelledby="welcome-h">
      <h2 id="welcome-h">Здравствуйте, {username}!</h2>
      <p>Вы вошли в аккаунт. Вот что можно сделать в личном кабинете:</p>
      <ul>
        <li>
          <Link to="/profile">Загрузить скин</Link> — он появится в игре и на сайте.
        </li>
        <li>Сменить пароль — во вкладке «Настройки» личного кабинета.</li>
        <li>
          Пополнить баланс и купить предметы в <Link to="/shop">магазине</Link> — они придут прямо в игру.
        </li>
        <li>Выйти из аккаунта — через меню с вашим ником в шапке сайта.</li>
      </ul>
    </section>
  );
}

/** /help: the support links from Настройки → Поддержка (empty ones are left out). */
export function SupportSection() {
  const site = useSite();
  const links = [
    { href: site.support_vk, label: 'Группа ВКонтакте' },
    { href: site.support_telegram, label: 'Telegram' },
    { href: site.support_discord, label: 'Discord-сервер' },
  ].filter((l) => isUsefulLink(l.href));
  if (links.length === 0 && !site.support_email) return null;
  return (
    <section className="card" aria-labelledby="support-h">
      <h2 id="support-h">Поддержка</h2>
      <p>Не нашли ответ? Напишите нам:</p>
      <div className="row">
        {links.map((l) => (
          <a key={l.label} className="btn" href={l.href} target="_blank" rel="noopener noreferrer">
            {l.label}
          </a>
        ))}
        {site.support_email && (
          <a className="btn" href={`mailto:${site.support_email}`}>
            {site.support_email}
          </a>
        )}
      </div>
    </section>
  );
}
