import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { Prose } from './Prose.tsx';
import { fetchLegalDoc, LEGAL_KEY, useLegal } from '../../providers/legal.ts';

/** /legal/{offer,privacy,refund}: the published version of a legal document, with the seller's details under it. */
export default function LegalPage() {
  const { kind = '' } = useParams<{ kind: string }>();
  const legal = useLegal();
  const query = useQuery({
    queryKey: [...LEGAL_KEY, 'doc', kind],
    queryFn: () => fetchLegalDoc(kind),
    retry: (n, e) => !(e instanceof ApiError && e.status < 500) && n < 2,
  });
  useTitle(query.data?.title ?? 'Документ');
  if (query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 400))
    return (
      <div className="stack">
        <h1>Документ не найден</h1>
        <p>
          Этот документ ещё не опубликован. <Link to="/">На главную</Link>
        </p>
      </div>
    );
  const seller = legal?.seller;
  return (
    <QueryState query={query} error="Не удалось загрузить документ" isEmpty={() => false}>
      {(doc) => (
        <article className="stack" data-testid="legal-page">
          <header className="page-head">
            <h1>{doc.title}</h1>
            <p className="muted">
              Редакция {doc.version} от {new Date(doc.published_at).toLocaleDateString('ru-RU')}
            </p>
          </header>
          <div className="card">
            <Prose html={doc.html} />
          </div>
          {seller && (
            <div className="card" data-testid="legal-seller">
              <h2>Реквизиты продавца</h2>
              <p>
                {seller.name} ({seller.legal_form_text})
                <br />
                ИНН {seller.inn}
                {seller.ogrn && (
                  <>
                    <br />
                    {seller.ogrn.length === 15 ? 'ОГРНИП' : 'ОГРН'} {seller.ogrn}
                  </>
                )}
                {seller.address && (
                  <>
                    <br />
                    {seller.address}
                  </>
                )}
                {seller.email && (
                  <>
                    <br />
                    <a href={`mailto:${seller.email}`}>{seller.email}</a>
                  </>
                )}
                {seller.phone && (
                  <>
                    <br />
                    {seller.phone}
                  </>
                )}
              </p>
            </div>
          )}
        </article>
      )}
    </QueryState>
  );
}
