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
 * A page the server sent already drawn (entry-server.tsx) carries its answers in #kubik-first:
 * nothing is asked, and the app's script (data-app) is fetched once the page has been painted,
 * so that on a slow line the drawn page comes first and the script does not compete with it.
 */
const page = location.pathname.replace(/\/+$/, '') || '/';
const script = document.querySelector<HTMLScriptElement>('script[data-page-files]');
// app/first-reads.ts, which the build writes into this script's data-reads.
const reads = JSON.parse(script?.dataset.reads ?? '{}') as { every?: string[]; pages?: Record<string, string[]> };
const drawn = document.getElementById('kubik-first');
const answers = drawn ? (JSON.parse(drawn.textContent ?? '{}') as Record<string, unknown>) : {};

const paths = [...(reads.every ?? []), ...(reads.pages?.[page] ?? [])];
// The signed-in marker (not the session itself, which scripts cannot read): a guest's page does not
// ask /api/user/me, whose 401 browsers log as an error (lib/session-marker.ts).
if (document.cookie.split('; ').includes('kubik_in=1')) paths.push('/api/user/me');
const early: EarlyReads = { at: performance.now(), reads: {}, ...(drawn ? { drawnFrom: Object.keys(answers) } : {}) };
for (const path of paths) {
  const read =
    path in answers
      ? Promise.resolve(new Response(JSON.stringify(answers[path]), { headers: { 'content-type': 'application/json' } }))
      : fetch(path, { credentials: 'include' });
  // A failure is the app's to report when it takes the answer; until then it is not an error.
  read.catch(() => {});
  early.reads[path] = read;
}
globalThis.__kubikEarly = early;

const preload = (href: string) => {
  const link = document.createElement('link');
  if (href.endsWith('.css')) link.rel = 'stylesheet';
  else {
    link.rel = 'modulepreload';
    link.crossOrigin = '';
  }
  link.href = href;
  document.head.append(link);
};
const pageFiles = (JSON.parse(script?.dataset.pageFiles ?? '{}') as Record<string, string[]>)[page] ?? [];

if (drawn) {
  // The server has put the page's styles in the head already.
  const [app, ...imports] = JSON.parse(script?.dataset.app ?? '[]') as string[];
  // One file asked for per task: each ask costs the main thread a few milliseconds (more on a slow
  // phone), and a dozen in one task was a long task right after the first paint.
  const files = [...imports, ...pageFiles.filter((f) => !f.endsWith('.css'))];
  const next = () => {
    const href = files.shift();
    if (href) {
      preload(href);
      setTimeout(next, 0);
    } else if (app) void import(/* @vite-ignore */ app);
  };
  whenPainted(next);
} else {
  for (const href of pageFiles) preload(href);
  firstImage();
}

/** Runs `then` once the browser reports the page's first contentful paint (at once where it cannot). */
function whenPainted(then: () => void) {
  // A hidden tab paints nothing until it is shown.
  if (document.visibilityState === 'hidden' || !PerformanceObserver.supportedEntryTypes?.includes('paint')) return then();
  let done = false;
  const go = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    then();
  };
  const observer = new PerformanceObserver((list) => {
    if (list.getEntriesByName('first-contentful-paint').length) go();
  });
  observer.observe({ type: 'paint', buffered: true });
  // A browser that never reports it still gets its app.
  setTimeout(go, 3000);
}

/** Where the first card's image comes from: the answer to read, and the image in it. */
function firstImage() {
  const FIRST_IMAGE: Record<string, [string, (body: never) => string | null | undefined]> = {
    // The home page's first row has three cards; the first of them with an image is the largest paint.
    '/': ['/api/tidings/news', (body: NewsFeedResponse) => body.news.slice(0, 3).find((n) => n.image_url)?.image_url],
    '/servers': ['/api/servers/', (body: ServersListResponse) => body.servers[0]?.image_url || body.servers[0]?.favicon_url],
  };
  const image = FIRST_IMAGE[page];
  if (!image) return;
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
