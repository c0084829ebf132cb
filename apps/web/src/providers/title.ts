import { useEffect } from 'react';
import { useSite } from './site.tsx';

/** The title of the page being drawn on the server (entry-server.tsx draws one page at a time). */
let drawnTitle: string | undefined;

/** `<screen> — <site>`; the site name alone on the home page. */
export function useTitle(screen: string | null): void {
  const site = useSite();
  const title = screen ? `${screen} — ${site.name}` : site.name;
  if (typeof document === 'undefined') drawnTitle = title;
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** The title the last page drawn on the server asked for, once. */
export function takeDrawnTitle(): string | undefined {
  const title = drawnTitle;
  drawnTitle = undefined;
  return title;
}
