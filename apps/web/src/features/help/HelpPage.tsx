import { Link } from 'wouter';
import { useAuth } from '../../providers/auth.tsx';
import { useSite } from '../../providers/site.tsx';
import { useTitle } from '../../providers/title.ts';
import { GameLoginSection } from './GameLoginSection.tsx';
import './help.css';

export default function HelpPage() {
  useTitle('Помощь');
  const site = useSite();
  const { user } = useAuth();
  return (
    <div className="stack help">
      <header className="page-head">
        <h1>Помощь</h1>
        <p>Как начать играть на {site.name}, что нужно компьютеру и куда писать, если что-то пошло не так.</p>
      </header>

      <section className="card" aria-labelledby="launcher-h">
        <h2 id="launcher-h">Скачать лаунчер</h2>
        <p className="muted">Лаунчер сам скачает игру, обновит её и подключит вас к серверу. Версия {site.launcher_version}.</p>
        <div className="row">
          <a className="btn btn-primary" href={site.launcher_windows_url} download>
            Windows (.exe) · {site.launcher_version}
          </a>
          <a className="btn" href={site.launcher_linux_url} download>
            Linux (AppImage) · {site.launcher_version}
          </a>
        </div>
        <h3 style={{ marginTop: 'var(--space-5)' }}>Системные требования</h3>
        <ul>
          <li>Windows 10/11 64-бит или Ubuntu 20.04 и новее</li>
          <li>4 ГБ оперативной памяти</li>
          <li>2 ГБ свободного места на диске</li>
        </ul>
      </section>

      <GameLoginSection />

      {user ? (
        <section className="card" aria-labelledby="welcome-h">
          <h2 id="welcome-h">Здравствуйте, {user.username}!</h2>
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
      ) : (
        <section className="card" aria-labelledby="faq-h">
          <h2 id="faq-h">Частые вопросы</h2>
          <details open>
            <summary>Как зарегистрироваться?</summary>
            <p>
              Откройте <Link to="/register">регистрацию</Link>, введите ник, почту и пароль, затем подтвердите почту по ссылке из письма. После этого можно
              войти на сайте и в лаунчере.
            </p>
          </details>
          <details>
            <summary>Я забыл пароль. Что делать?</summary>
            <p>
              На странице <Link to="/login">входа</Link> нажмите «Забыли пароль?», укажите почту — мы пришлём ссылку для сброса.
            </p>
          </details>
        </section>
      )}

      <section className="card" aria-labelledby="security-h">
        <h2 id="security-h">Безопасность аккаунта</h2>
        <ul>
          <li>Не сообщайте пароль никому, даже администрации: мы никогда его не спрашиваем.</li>
          <li>Используйте для игры отдельный пароль, не такой, как на почте.</li>
          <li>Скачивайте лаунчер только с этой страницы.</li>
          <li>Если кто-то вошёл в ваш аккаунт — сбросьте пароль через «Забыли пароль?»: все сеансы завершатся.</li>
        </ul>
      </section>

      <section className="card" aria-labelledby="support-h">
        <h2 id="support-h">Поддержка</h2>
        <p>Не нашли ответ? Напишите нам:</p>
        <div className="row">
          {site.support_vk && (
            <a className="btn" href={site.support_vk} target="_blank" rel="noopener noreferrer">
              Группа ВКонтакте
            </a>
          )}
          {site.support_telegram && (
            <a className="btn" href={site.support_telegram} target="_blank" rel="noopener noreferrer">
              Telegram
            </a>
          )}
          {site.support_discord && (
            <a className="btn" href={site.support_discord} target="_blank" rel="noopener noreferrer">
              Discord-сервер
            </a>
          )}
          {site.support_email && (
            <a className="btn" href={`mailto:${site.support_email}`}>
              {site.support_email}
            </a>
          )}
        </div>
      </section>
    </div>
  );
}
