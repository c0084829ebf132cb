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
    <section className="card" id="launcher" aria-labelledby="launcher-h" data-testid="launcher-section">
      <h2 id="launcher-h">Скачать лаунчер</h2>
      <p className="muted">Лаунчер сам скачает игру, обновит её и подключит вас к серверу.</p>
      {query.isPending ? (
        <p className="muted">Загружаем ссылки…</p>
      ) : query.isError ? (
        <p className="muted">Не удалось загрузить ссылки на лаунчер. Обновите страницу.</p>
      ) : builds.length === 0 ? (
        <OtherLaunchers />
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

/**
 * No launcher of the server's own yet: what a player can use meanwhile (any with authlib-injector),
 * from its makers' own pages — so «download only from this page» holds here too.
 */
function OtherLaunchers() {
  return (
    <div className="stack" data-testid="other-launchers">
      <p>Свой лаунчер сервер ещё не выложил — подойдёт лаунчер с authlib-injector. Скачайте его с официальной страницы:</p>
      <ul>
        <li>
          <a href="https://hmcl.huangyuhui.net/download/" target="_blank" rel="noopener noreferrer">
            HMCL
          </a>{' '}
          — Windows, Linux и macOS (нужна Java);
        </li>
        <li>
          <a href="https://github.com/unmojang/FjordLauncher/releases" target="_blank" rel="noopener noreferrer">
            Fjord Launcher
          </a>{' '}
          — Windows, Linux и macOS.
        </li>
      </ul>
      <p>
        Как войти в нём с аккаунтом сайта — в разделе <a href="#game-login">«Вход в лаунчере»</a>.
      </p>
    </div>
  );
}

/**
 * /help «Как начать играть»: the player's four steps, from an account to the server's address,
 * each where it is done (a signed-in player's first step is done already).
 */
export function StartSection({ username }: { username: string | null }) {
  const site = useSite();
  return (
    <section className="card" aria-labelledby="start-h" data-testid="start-steps">
      <h2 id="start-h">Как начать играть</h2>
      <ol className="start-steps">
        <li>
          {username ? (
            <>Аккаунт есть: вы вошли как {username}.</>
          ) : (
            <>
              <Link to="/register">Зарегистрируйтесь</Link> и подтвердите почту по ссылке из письма.
            </>
          )}
        </li>
        <li>
          <a href="#launcher">Скачайте лаунчер</a> и установите его.
        </li>
        <li>
          Войдите в лаунчере с ником и паролем от сайта — <a href="#game-login">как войти</a>.
        </li>
        <li>
          {site.game_address ? (
            <>
              Добавьте сервер по адресу <CopyText text={site.game_address} label="адрес сервера" testId="help-game-address" /> и играйте.
            </>
          ) : (
            <>Выберите сервер в лаунчере и играйте.</>
          )}
        </li>
      </ol>
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
