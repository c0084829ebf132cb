import type { GameLoginInfo } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { fetchGameLogin, GAME_LOGIN_KEY } from './api.ts';

/** The LaunchServer config (GravitLauncher 5.5+, module MyHttp_module) that points its login at this site. */
function gravitConfig(info: GameLoginInfo): string {
  const site = info.site_url;
  const user = `${site}/api/gravit/user?username=%username%&uuid=%uuid%`;
  const core = {
    type: 'myhttp',
    userByUsername: user,
    userByUuid: user,
    userByToken: `${site}/api/gravit/user/by-token`,
    refreshAccessToken: `${site}/api/gravit/refresh`,
    authorize: `${site}/api/gravit/authorize`,
    joinServer: `${site}/api/gravit/join`,
    checkServer: `${site}/api/gravit/check`,
    bearerToken: '<GRAVIT_SECRET>',
  };
  return JSON.stringify(
    { [info.server_name.replace(/[^A-Za-z0-9_]/g, '') || 'site']: { isDefault: true, displayName: info.server_name, visible: true, core } },
    null,
    2,
  );
}

/** The JVM option that points a game server at the site (authlib-injector's own instructions). */
const javaagent = (info: GameLoginInfo) => `-javaagent:authlib-injector.jar=${info.yggdrasil_url}`;

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small"
      aria-label={label}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        });
      }}
    >
      {copied ? 'Скопировано' : 'Копировать'}
    </button>
  );
}

/** /help «Вход в игру»: how to point a launcher (authlib-injector or GravitLauncher) at the site. */
export function GameLoginSection() {
  const query = useQuery({ queryKey: GAME_LOGIN_KEY, queryFn: fetchGameLogin, staleTime: 60_000 });
  const info = query.data;
  return (
    <section className="card" aria-labelledby="game-login-h">
      <h2 id="game-login-h">Вход в игру</h2>
      {!info ? (
        <p className="muted">{query.isError ? 'Не удалось загрузить инструкцию. Обновите страницу.' : 'Загрузка...'}</p>
      ) : (
        <div className="stack">
          {info.help_text && <p className="game-login-text">{info.help_text}</p>}
          <p>
            В игру входят с ником и паролем от сайта (или с почтой вместо ника). Почта должна быть подтверждена. Скины и плащи из личного
            кабинета видны в игре, а чат подписывается ключом, который выдаёт сайт.
          </p>
          <p className="game-login-2fa" data-testid="two-factor-login">
            <strong>Двухфакторная защита.</strong> Если она включена, в поле пароля лаунчера введите <code>пароль:код</code> — пароль,
            двоеточие и код из приложения, например <code>пароль:123456</code> (или пароль и один из резервных кодов). Некоторые лаунчеры
            сами спросят код после пароля.
          </p>
          <h3>Какие лаунчеры подходят</h3>
          <ul data-testid="launchers">
            <li>
              Лаунчеры с authlib-injector: HMCL, PCL2, BakaXL, Fjord Launcher (вариант PrismLauncher; в обычном PrismLauncher такого входа
              нет).
            </li>
            {info.gravit_enabled && <li>GravitLauncher — если его сборку для сервера настроил владелец (см. ниже).</li>}
          </ul>
          <h3>Лаунчер с authlib-injector</h3>
          <p>
            Добавьте сервер авторизации (authlib-injector) с этим адресом — или просто перетащите{' '}
            <a href={`authlib-injector:yggdrasil-server:${encodeURIComponent(info.yggdrasil_url)}`} draggable>
              эту ссылку
            </a>{' '}
            в окно лаунчера:
          </p>
          <div className="row game-login-url">
            <code data-testid="yggdrasil-url">{info.yggdrasil_url}</code>
            <CopyButton text={info.yggdrasil_url} label="Копировать адрес сервера авторизации" />
          </div>
          <h3>Владельцам игровых серверов</h3>
          <ol className="game-login-steps" data-testid="server-setup">
            <li>
              Скачайте authlib-injector (<code>authlib-injector.yushi.moe</code>) и положите его рядом с файлом сервера (Paper, Spigot,
              Fabric, ванильный).
            </li>
            <li>
              В команде запуска перед <code>-jar</code> добавьте:
              <div className="row game-login-url">
                <code data-testid="javaagent-line">{javaagent(info)}</code>
                <CopyButton text={javaagent(info)} label="Копировать параметр запуска" />
              </div>
              Например: <code>java {javaagent(info)} -jar server.jar nogui</code>
            </li>
            <li>
              В <code>server.properties</code>: <code>online-mode=true</code>, а для версий 1.19 и новее ещё{' '}
              <code>enforce-secure-profile=true</code> — тогда сервер пускает только игроков с ключом подписи чата от сайта.
            </li>
            <li>
              С BungeeCord или Velocity authlib-injector нужен и на прокси, и на каждом сервере за ним; <code>online-mode=true</code> —
              только на прокси, на серверах за ним — <code>false</code>. Проверку ключей чата включают на прокси (Velocity:{' '}
              <code>force-key-authentication = true</code>, BungeeCord: <code>enforce_secure_profile: true</code>).
            </li>
          </ol>
          {info.gravit_enabled && (
            <>
              <h3>GravitLauncher</h3>
              <p>
                Для владельца лаунчера: вставьте в <code>LaunchServer.json</code> → <code>auth</code> (нужен модуль{' '}
                <code>MyHttp_module</code>, LaunchServer 5.5 и новее; в <code>bearerToken</code> — значение GRAVIT_SECRET с сайта):
              </p>
              <pre className="game-login-config" data-testid="gravit-config">
                {gravitConfig(info)}
              </pre>
              <CopyButton text={gravitConfig(info)} label="Копировать настройки LaunchServer" />
            </>
          )}
        </div>
      )}
    </section>
  );
}
