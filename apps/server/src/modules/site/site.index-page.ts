import { readFile } from 'node:fs/promises';
import { accentCss, DEFAULT_ACCENT, type SiteSettings } from '@kubik/contract';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * The built index page filled in with the site settings, so that search engines, link previews
 * and the first paint (before the app's script runs) see them: the title, the meta description,
 * the favicon, the logo and name in the header, and the accent colour.
 */
export async function indexPage(indexFile: string, s: SiteSettings): Promise<Buffer> {
  const name = escapeHtml(s.name);
  const description = escapeHtml(s.seo_description || s.description);
  let html = (await readFile(indexFile, 'utf8'))
    .replace('<title>Kubik</title>', `<title>${name}</title>`)
    .replace('<span data-site-name>Kubik</span>', `<span data-site-name>${name}</span>`)
    .replace(/<meta name="description" content="[^"]*" \/>/, `<meta name="description" content="${description}" />`);
  if (s.favicon_url)
    html = html.replace(
      '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />',
      `<link rel="icon" href="${escapeHtml(s.favicon_url)}" />`,
    );
  if (s.logo_url)
    html = html.replace(
      '<img src="/favicon.svg" alt="" width="28" height="28" class="pixelated" />',
      `<img src="${escapeHtml(s.logo_url)}" alt="" width="28" height="28" class="pixelated" />`,
    );
  // accentCss() writes only a validated #rrggbb colour: nothing else reaches the <style>.
  if (s.accent_color.toLowerCase() !== DEFAULT_ACCENT)
    html = html.replace('</head>', `<style id="site-accent">${accentCss(s.accent_color)}</style></head>`);
  return Buffer.from(html);
}
