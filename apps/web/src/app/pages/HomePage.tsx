import { NewsFeed } from '../../features/news/NewsFeed.tsx';
import { TotalOnline } from '../../features/servers/TotalOnline.tsx';
import { useSite } from '../../providers/site.tsx';
import { useTitle } from '../../providers/title.ts';

/** The welcome, the players online across the servers, then the news. */
export default function HomePage() {
  useTitle(null);
  const site = useSite();
  return (
    <div className="stack">
      <header className="page-head home-head">
        <h1>Добро пожаловать на {site.name}!</h1>
        <TotalOnline />
      </header>
      <NewsFeed />
    </div>
  );
}
