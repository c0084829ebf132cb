import { Suspense } from 'react';
import { Link } from 'wouter';
import { CopyText } from '../../components/CopyText.tsx';
import { NewsFeed } from '../../features/news/NewsFeed.tsx';
import { TotalOnline } from '../../features/servers/TotalOnline.tsx';
import { useAuth } from '../../providers/auth.tsx';
import { useSite } from '../../providers/site.tsx';
import { useTitle } from '../../providers/title.ts';
import { lazyPage } from '../lazy-page.tsx';
import { CommunityGoal } from '../../features/donate/Community.tsx';
import './home.css';

// Below the fold: their own chunks, so the first page's script stays small. When the home page is
// the first one, they are loaded before it renders (app/first-page.ts), so they do not appear a
// moment after the news and push it down.
const HomeServerCards = lazyPage(() => import('../../features/servers/HomeServerCards.tsx'));
const HomeShowcase = lazyPage(() => import('../../features/players/HomeShowcase.tsx'));

export const preloadHomePage = () => Promise.all([HomeServerCards.preload(), HomeShowcase.preload()]);

/**
 * The owner's banner (Настройки → Главная страница), the hero (the welcome, the game address to
 * copy, the players online across the servers, «Начать играть» and «Поддержать сервер»), the
 * servers' status cards, the latest purchases and the month's top (each as the owner chose),
 * then the news.
 */
export default function HomePage() {
  useTitle(null);
  const site = useSite();
  const { user } = useAuth();
  // null is a guest; undefined (not known yet) shows neither, so nothing flickers for a player.
  const guest = user === null;
  return (
    <div className="stack">
      {site.home_banner_url && <Banner />}
      <section className="hero" aria-labelledby="hero-h">
        <h1 id="hero-h">Добро пожаловать на {site.name}!</h1>
        {site.description && <p className="hero-lead">{site.description}</p>}
        {site.game_address && (
          <div className="hero-address">
            <span className="hero-address-label">Адрес сервера</span>
            <CopyText text={site.game_address} label="Адрес сервера" testId="game-address" />
          </div>
        )}
        <TotalOnline />
        <div className="hero-actions">
          {/* /help opens with the launcher's downloads. */}
          <Link to="/help" className="btn btn-primary hero-play">
            Начать играть
          </Link>
          {/* The way to support the server, in the donation's gold: a tier, its kits and features. */}
          <Link to="/donate" className="btn btn-gold hero-play">
            Поддержать сервер
          </Link>
          {guest && (
            <Link to="/register" className="btn">
              Регистрация
            </Link>
          )}
        </div>
      </section>
      <Suspense fallback={null}>
        <HomeServerCards />
        <HomeShowcase />
      </Suspense>
      <CommunityGoal />
      <NewsFeed />
    </div>
  );
}

/**
 * The owner's banner: a wide picture (its place kept, so nothing below moves when it arrives),
 * with its title and line over it, leading where the owner set (a page of the site or another).
 */
function Banner() {
  const site = useSite();
  const href = site.home_banner_link;
  const title = site.home_banner_title;
  const body = (
    <>
      <img src={site.home_banner_url} alt={title} width={1200} height={400} fetchPriority="high" className="home-banner-image" />
      {(title || site.home_banner_text) && (
        <span className="home-banner-caption">
          {title && <strong>{title}</strong>}
          {site.home_banner_text && <span>{site.home_banner_text}</span>}
        </span>
      )}
    </>
  );
  return (
    <section className="home-banner" aria-label={title || 'Баннер'} data-testid="home-banner">
      {!href ? (
        body
      ) : href.startsWith('/') ? (
        <Link to={href}>{body}</Link>
      ) : (
        <a href={href} target="_blank" rel="noopener noreferrer">
          {body}
        </a>
      )}
    </section>
  );
}
