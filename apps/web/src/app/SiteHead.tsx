import { accentCss, DEFAULT_ACCENT } from '@kubik/contract/accent';
import { useEffect } from 'react';
import { useSite } from '../providers/site.tsx';

/**
 * Keeps the document's head in step with the site settings after a change in this tab: the
 * accent colour's CSS variables, the favicon and the meta description. The server writes the same
 * into the index page (modules/site/site.index-page.ts), so the first paint already has them.
 */
export function SiteHead() {
  const site = useSite();
  useEffect(() => {
    let style = document.getElementById('site-accent');
    if (site.accent_color.toLowerCase() === DEFAULT_ACCENT) {
      style?.remove();
      return;
    }
    if (!style) {
      style = document.createElement('style');
      style.id = 'site-accent';
      document.head.append(style);
    }
    style.textContent = accentCss(site.accent_color);
  }, [site.accent_color]);

  useEffect(() => {
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!icon) return;
    icon.href = site.favicon_url || '/favicon.svg';
    if (site.favicon_url) icon.removeAttribute('type');
    else icon.type = 'image/svg+xml';
  }, [site.favicon_url]);

  useEffect(() => {
    const text = site.seo_description || site.description;
    const meta = document.querySelector<HTMLMetaElement>('meta[name="description"]');
    if (meta && text) meta.content = text;
  }, [site.seo_description, site.description]);
  return null;
}
