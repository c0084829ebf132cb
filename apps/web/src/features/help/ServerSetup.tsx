import type { GameLoginInfo } from '@kubik/contract';
import { CopyText } from '../../components/CopyText.tsx';

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

/**
 * Админ-панель → Вход в игру: what the owner sets on the game servers (and on GravitLauncher's
 * LaunchServer) so that players log in with the site's accounts. Players never see it: /help
 * tells them what to do.
 */
export function ServerSetup({ info }: { info: GameLoginInfo }) {
  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="server-setup-h">
        <h3 id="server-setup-h">Настройка игрового сервера</h3>
        <ol className="game-login-steps" data-testid="server-setup">
          <li>
            Скачайте authlib-injector (<code>authlib-injector.yushi.moe</code>) и положите его рядом с файлом сервера (Paper, Spigot,
            Fabric, ванильный).
          </li>
          <li>
            В команде запуска перед <code>-jar</code> добавьте:
            <div className="game-login-url">
              <CopyText text={javaagent(info)} label="параметр запуска" testId="javaagent-line" />
            </div>
            Например: <code>java {javaagent(info)} -jar server.jar nogui</code>
          </li>
          <li>
            В <code>server.properties</code>: <code>online-mode=true</code>, а для версий 1.19 и новее ещё{' '}
            <code>enforce-secure-profile=true</code> — тогда сервер пускает только игроков с ключом подписи чата от сайта.
          </li>
          <li>
            С BungeeCord или Velocity authlib-injector нужен и на прокси, и на каждом сервере за ним; <code>online-mode=true</code> — только
            на прокси, на серверах за ним — <code>false</code>. Проверку ключей чата включают на прокси (Velocity:{' '}
            <code>force-key-authentication = true</code>, BungeeCord: <code>enforce_secure_profile: true</code>).
          </li>
        </ol>
      </section>
      {info.gravit_enabled ? (
        <section className="card stack" aria-labelledby="gravit-h">
          <h3 id="gravit-h">GravitLauncher</h3>
          <p>
            Вставьте в <code>LaunchServer.json</code> → <code>auth</code> (нужен модуль <code>MyHttp_module</code>, LaunchServer 5.5 и
            новее; в <code>bearerToken</code> — значение GRAVIT_SECRET с сайта):
          </p>
          <pre className="game-login-config" data-testid="gravit-config">
            {gravitConfig(info)}
          </pre>
          <CopyText text={gravitConfig(info)} label="настройки LaunchServer" />
        </section>
      ) : (
        <p className="muted">GravitLauncher: задайте на сайте переменную GRAVIT_SECRET, и здесь появятся настройки LaunchServer.</p>
      )}
    </div>
  );
}
