import type { NewsFeedResponse, ServersListResponse } from '@kubik/contract';
import type { EarlyReads } from './lib/early.ts';

/**
 * The first script the page runs, a few hundred bytes: it asks the API for what the first page
 * shows while the app's own JavaScript (~85 KB compressed) is still on its way, so the answers are
 * in when the app starts (lib/early.ts hands them to api(), and main.tsx renders with them). On
 * the home and servers pages it also fetches the first card's image, the page's largest picture,
 * as soon as its address is known; and on pages that are chunks of their own, their code and
 * styles (the build lists them in this script's data-page-files).
 *
 * Keep these paths in step with the queries in app/first-page.ts.
 */
const EVERY_PAGE = ['/api/site/settings', '/api/pages'];
// The signed-in marker (not the session itself, which scripts cannot read): a guest's page does not
// ask /api/user/me, whose 401 browsers log as an error (lib/session-marker.ts).
if (document.cookie.split('; ').includes('kubik_in=1')) EVERY_PAGE.push('/api/user/me');
const PAGE_READS: Record<string, string[]> = {
  '/': ['/api/tidings/news', '/api/servers/', '/api/home/showcase'],
  '/servers': ['/api/servers/'],
  '/donate': ['/api/donate/fully'],
  '/rules': ['/api/pages/rules'],
  '/help': ['/api/pages/faq', '/api/pages/help'],
};

/** Where the first card's image comes from: the answer to read, and the image in it. */
const FIRST_IMAGE: Record<string, [string, (body: never) => string | null | undefined]> = {
  // The home page's first row has three cards; the first of them with an image is the largest paint.
  '/': ['/api/tidings/news', (body: NewsFeedResponse) => body.news.slice(0, 3).find((n) => n.image_url)?.image_url],
  '/servers': ['/api/servers/', (body: ServersListResponse) => body.servers[0]?.image_url || body.servers[0]?.favicon_url],
};

const page = location.pathname.replace(/\/+$/, '') || '/';
const early: EarlyReads = { at: performance.now(), reads: {} };
for (const path of [...EVERY_PAGE, ...(PAGE_READS[page] ?? [])]) {
  const read = fetch(path, { credentials: 'include' });
  // A failure is the app's to report when it takes the answer; until then it is not an error.
  read.catch(() => {});
  early.reads[path] = read;
}
window.__kubikEarly = early;

const script = document.querySelector<HTMLScriptElement>('script[data-page-files]');
const pageFiles = (JSON.parse(script?.dataset.pageFiles ?? '{}') as Record<string, string[]>)[page] ?? [];
for (const href of pageFiles) {
  const link = document.createElement('link');
  if (href.endsWith('.css')) link.rel = 'stylesheet';
  else {
    link.rel = 'modulepreload';
    link.crossOrigin = '';
  }
  link.href = href;
  document.head.append(link);
}

const image = FIRST_IMAGE[page];
if (image) {
  const [path, pick] = image;
  early.reads[path]
    ?.then((res) => (res.ok ? res.clone().json() : null))
    .then((body) => {
      const src = body && pick(body as never);
      if (!src) return;
      const link = document.createElement('link');
      link.rel = 'preload';
      link.as = 'image';
      link.href = src;
      link.fetchPriority = 'high';
      document.head.append(link);
    })
    .catch(() => {});
}
