/**
 * What each first page reads from the API, by path: boot.ts asks for them before the app's script
 * has arrived, app/first-page.ts waits for them before the first render, and the server answers
 * them inside a prerendered page (entry-server.tsx). Kept apart and tiny, so boot.ts stays small.
 */

/** Read on every page (with /api/user/me when the browser has the signed-in marker). */
export const EVERY_PAGE_READS = ['/api/site/settings', '/api/pages'];

export const PAGE_READS: Record<string, string[]> = {
  '/': ['/api/tidings/news', '/api/servers/', '/api/home/showcase'],
  '/servers': ['/api/servers/'],
  '/donate': ['/api/donate/fully'],
  '/rules': ['/api/pages/rules'],
  '/help': ['/api/pages/faq', '/api/pages/help'],
};

/**
 * The pages the server sends to a guest already drawn (entry-server.tsx): the first pages of most
 * visits, whose content is public and the same for every guest.
 */
export const PRERENDERED_PAGES = ['/', '/servers', '/donate', '/rules', '/help', '/login', '/register', '/forgot-password'];

/**
 * Asked by the browser even on a page the server drew: the home page's widgets change with every
 * purchase and with a player's privacy, outside the public cache a drawn page is kept in, so a
 * kept page could show a name its player has just hidden.
 */
export const NOT_DRAWN_READS = ['/api/home/showcase'];

/** `/servers/` → `/servers`; the home page stays `/`. */
export const pageOf = (pathname: string) => pathname.replace(/\/+$/, '') || '/';
