import { Link } from 'wouter';
import { useTitle } from '../providers/title.ts';

export default function NotFoundPage() {
  useTitle('Страница не найдена');
  return (
    <section className="empty">
      <h1>Страница не найдена</h1>
      <p>Такой страницы нет. Возможно, ссылка устарела.</p>
      <Link to="/" className="btn btn-primary">
        На главную
      </Link>
    </section>
  );
}
