/**
 * A support link worth showing: set, and more than a service's bare home page (`https://vk.com/`
 * leads nowhere in particular), so an unfilled setting never shows a dead end.
 */
export function isUsefulLink(href: string): boolean {
  if (!href.trim()) return false;
  try {
    const url = new URL(href, 'http://site.invalid');
    return url.host === 'site.invalid' || url.pathname.replace(/\/+$/, '') !== '' || url.search !== '' || url.hash !== '';
  } catch {
    return false;
  }
}
