import { useTitle } from '../lib/title.ts';

/** A screen whose feature has not landed yet. */
export function Placeholder({ title }: { title: string }) {
  useTitle(title);
  return (
    <section className="stack">
      <h1>{title}</h1>
      <div className="empty">Раздел скоро появится.</div>
    </section>
  );
}
