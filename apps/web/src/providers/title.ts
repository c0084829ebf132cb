import { useEffect } from 'react';
import { useSite } from './site.tsx';

/** `<screen> — <site>`; the site name alone on the home page. */
export function useTitle(screen: string | null): void {
  const site = useSite();
  useEffect(() => {
    document.title = screen ? `${screen} — ${site.name}` : site.name;
  }, [screen, site.name]);
}
