import { Suspense } from 'react';
import { Link } from 'wouter';
import { CopyText } from '../../components/CopyText.tsx';
import { NewsFeed } from '../../features/news/NewsFeed.tsx';
import { TotalOnline } from '../../features/servers/TotalOnline.tsx';
import { useAuth } from '../../providers/auth.tsx';
import { useSite } from '../../providers/site.tsx';
import { useTitle } from '../../providers/title.ts';
import { lazyPage } from '../lazy-page.tsx';
import './home.css';

// Below the fold: their own chunks, so the first page's script stays small. When the home page is
// the first one, they are loaded before it renders (app/first-page.ts), so they do not appear a
// moment after the news and push it down.
const HomeServerCards = lazyPage(() => import('../../features/servers/HomeServerCards.tsx'));
const HomeShowcase = lazyPage(() => import('../../features/players/HomeShowcase.tsx'));

export const preloadHomePage = () => Promise.all([HomeServerCards.preload(), HomeShowcase.preload()]);

/**
 * The hero (the welcome, the game address to copy, the players online across the servers and
 * «Начать играть»), the servers' status cards, the latest purchases and the month's top (each
 * as the owner chose), then the news.
 */
export default function HomePage() {
  useTitle(null);
  const site = useSite();
  const { user } = useAuth();
  // null is a guest; undefined (not known yet) shows neither, so nothing flickers for a player.
  const guest = user === null;
  return (
    <div className="stack">
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
      <NewsFeed />
    </div>
  );
}
