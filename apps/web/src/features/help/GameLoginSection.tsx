import { useQuery } from '@tanstack/react-query';
import { CopyText } from '../../components/CopyText.tsx';
import { fetchGameLogin, GAME_LOGIN_KEY } from './api.ts';

/**
 * /help «Вход в лаунчере»: what a player does to log in from the game — which launchers fit, the
 * address to add to one with authlib-injector, and the two-factor code. What an owner sets on the
 * game servers is in the admin area (Вход в игру).
 */
export function GameLoginSection() {
  const query = useQuery({ queryKey: GAME_LOGIN_KEY, queryFn: fetchGameLogin, staleTime: 60_000 });
  const info = query.data;
  return (
    <section className="card" id="game-login" aria-labelledby="game-login-h">
      <h2 id="game-login-h">Вход в лаунчере</h2>
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
            <li>Лаунчер сервера со страницы выше, если он выложен, — в нём всё уже настроено.</li>
            <li>
              Лаунчеры с authlib-injector: HMCL, PCL2, BakaXL, Fjord Launcher (вариант PrismLauncher; в обычном PrismLauncher такого входа
              нет).
            </li>
            {info.gravit_enabled && <li>GravitLauncher — сборка сервера, если её выложил владелец.</li>}
          </ul>
          <h3>Лаунчер с authlib-injector</h3>
          <p>
            Добавьте в лаунчере сервер авторизации (authlib-injector) с этим адресом — или просто перетащите{' '}
            <a href={`authlib-injector:yggdrasil-server:${encodeURIComponent(info.yggdrasil_url)}`} draggable>
              эту ссылку
            </a>{' '}
            в окно лаунчера:
          </p>
          <div className="game-login-url">
            <CopyText text={info.yggdrasil_url} label="адрес сервера авторизации" testId="yggdrasil-url" />
          </div>
        </div>
      )}
    </section>
  );
}
