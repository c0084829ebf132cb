import { useSite } from '../../app/site.tsx';
import { useTitle } from '../../lib/title.ts';

export default function HomePage() {
  useTitle(null);
  const site = useSite();
  return (
    <div className="stack">
      <header className="page-head">
        <h1>Добро пожаловать на {site.name}!</h1>
      </header>
      <div className="empty">Здесь пока нет новостей</div>
    </div>
  );
}
