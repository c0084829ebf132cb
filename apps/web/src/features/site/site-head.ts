import type { SiteSettings } from '@kubik/contract';
import { accentCss, DEFAULT_ACCENT } from '@kubik/contract/accent';

/**
 * Brings this tab's document head in step with settings just saved: the accent colour's CSS
 * variables, the favicon and the meta description. Everyone else gets them from the index page,
 * which the server fills in (modules/site/site.index-page.ts); only the tab that saved needs this,
 * so it lives in the settings screen's chunk, not on the first page.
 */
export function applySiteHead(site: SiteSettings): void {
  let style = document.getElementById('site-accent');
  if (site.accent_color.toLowerCase() === DEFAULT_ACCENT) style?.remove();
  else {
    if (!style) {
      style = document.createElement('style');
      style.id = 'site-accent';
      document.head.append(style);
    }
    style.textContent = accentCss(site.accent_color);
  }

  const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (icon) {
    icon.href = site.favicon_url || '/favicon.svg';
    if (site.favicon_url) icon.removeAttribute('type');
    else icon.type = 'image/svg+xml';
  }

  const meta = document.querySelector<HTMLMetaElement>('meta[name="description"]');
  const text = site.seo_description || site.description;
  if (meta && text) meta.content = text;
}
