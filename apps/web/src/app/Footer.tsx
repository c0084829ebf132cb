import { Link } from 'wouter';
import { usePageLinks } from '../features/pages/api.ts';
import { useSite } from '../providers/site.tsx';
import { useLegal } from '../providers/legal.ts';

/** The owner's footer: their words, the support links set in Настройки, and the seller's legal details. */
export function Footer() {
  const site = useSite();
  const pages = usePageLinks('footer');
  const legalInfo = useLegal();
  const support = [
    { href: site.support_vk, label: 'ВКонтакте' },
    { href: site.support_telegram, label: 'Telegram' },
    { href: site.support_discord, label: 'Discord' },
  ].filter((l) => l.href);
  const legal = [
    site.legal_seller,
    site.legal_inn && `ИНН ${site.legal_inn}`,
    site.legal_ogrn && `${site.legal_ogrn.length === 15 ? 'ОГРНИП' : 'ОГРН'} ${site.legal_ogrn}`,
  ].filter(Boolean);
  return (
    <footer className="site-footer">
      <div className="container footer-inner">
        <div className="footer-about">
          <strong>{site.name}</strong>
          {site.footer_text && (
            <p className="muted preline" data-testid="footer-text">
              {site.footer_text}
            </p>
          )}
        </div>
        <nav aria-label="Ссылки в подвале">
          <ul>
            <li>
              <Link to="/help">Помощь</Link>
            </li>
            <li>
              <Link to="/help#launcher">Скачать лаунчер</Link>
            </li>
            <li>
              <Link to="/rules">Правила</Link>
            </li>
            <li>
              <Link to="/donate">Донат</Link>
            </li>
            {legalInfo?.documents.map((d) => (
              <li key={d.kind}>
                <Link to={d.path}>{d.title}</Link>
              </li>
            ))}
            {pages.map((p) => (
              <li key={p.slug}>
                <Link to={p.path}>{p.title}</Link>
              </li>
            ))}
          </ul>
        </nav>
        {(support.length > 0 || site.support_email) && (
          <nav aria-label="Поддержка">
            <ul>
              {support.map((l) => (
                <li key={l.label}>
                  <a href={l.href} target="_blank" rel="noopener noreferrer">
                    {l.label}
                  </a>
                </li>
              ))}
              {site.support_email && (
                <li>
                  <a href={`mailto:${site.support_email}`}>{site.support_email}</a>
                </li>
              )}
            </ul>
          </nav>
        )}
        <div className="copyright muted">
          <p>
            © {new Date().getFullYear()} {site.name}
          </p>
          {legal.length > 0 && <p data-testid="footer-legal">{legal.join(' · ')}</p>}
          {legalInfo && (
            <p className="age-mark" data-testid="footer-age" aria-label={`Возрастная маркировка ${legalInfo.age_mark}`}>
              {legalInfo.age_mark}
            </p>
          )}
        </div>
      </div>
    </footer>
  );
}
