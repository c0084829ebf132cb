/**
 * The one pager of a long list (newest first): «← Новее», «Страница 2 из 5», «Старше →». Drawn
 * only when there is more than one page; the buttons at either end are disabled, not hidden, so
 * the row does not move under a finger.
 */
export function Pager({
  page,
  pages,
  onPage,
  label,
  previous = '← Новее',
  next = 'Старше →',
}: {
  page: number;
  pages: number;
  onPage: (page: number) => void;
  /** What the pages are of, for screen readers: «Страницы журнала». */
  label: string;
  previous?: string;
  next?: string;
}) {
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="btn btn-small" disabled={page <= 1} onClick={() => onPage(Math.max(1, page - 1))}>
        {previous}
      </button>
      <span aria-live="polite" aria-current="page">
        Страница {page} из {pages}
      </span>
      <button type="button" className="btn btn-small" disabled={page >= pages} onClick={() => onPage(Math.min(pages, page + 1))}>
        {next}
      </button>
    </nav>
  );
}
