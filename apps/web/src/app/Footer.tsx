import { Link } from 'wouter';
import { useSite } from '../providers/site.tsx';

export function Footer() {
  const site = useSite();
  return (
    <footer className="site-footer">
      <div className="container footer-inner">
        <div>
          <strong>{site.name}</strong>
          <p className="muted">Игровой сервер и его сообщество. Сайт не связан с Mojang и Microsoft.</p>
        </div>
        <nav aria-label="Ссылки в подвале">
          <ul>
            <li>
              <Link to="/help">Помощь и лаунчер</Link>
            </li>
            <li>
              <Link to="/rules">Правила</Link>
            </li>
            <li>
              <Link to="/donate">Донат</Link>
            </li>
            <li>
              <a href={site.support.discord} target="_blank" rel="noopener noreferrer">
                Поддержка
              </a>
            </li>
          </ul>
        </nav>
        <p className="muted copyright">© {new Date().getFullYear()} {site.name}</p>
      </div>
    </footer>
  );
}
