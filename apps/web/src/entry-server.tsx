import { QueryClient } from '@tanstack/react-query';
import { prerenderToNodeStream } from 'react-dom/static';
import { App } from './app/App.tsx';
import { loadFirstPage } from './app/first-page.ts';
import { EVERY_PAGE_READS, NOT_DRAWN_READS, PAGE_READS, PRERENDERED_PAGES } from './app/first-reads.ts';
import { ME_KEY } from './providers/auth.tsx';
import { takeDrawnTitle } from './providers/title.ts';

/**
 * The app drawn on the server, for a guest's first page (the server's modules/site/site.prerender.ts
 * calls it, and keeps the result until a public answer changes): the page is on screen as soon as
 * the HTML and the styles are in, and main.tsx takes the markup over once its script has arrived.
 * Built by `vite build --ssr` into dist/ssr/, with every package inside.
 */
export { PRERENDERED_PAGES };

/** The API paths a page is drawn from: the server answers them and passes the answers to render(). */
export const readsOf = (page: string): string[] =>
  [...EVERY_PAGE_READS, ...(PAGE_READS[page] ?? [])].filter((path) => !NOT_DRAWN_READS.includes(path));

let queue: Promise<unknown> = Promise.resolve();

export interface Drawn {
  /** The markup of #root. */
  markup: string;
  /** The page's <title>, as the app sets it in the browser. */
  title?: string;
}

/**
 * `page` drawn from `answers` (by path, as readsOf() lists them). One at a time: the answers
 * reach the app's api() through a global, as boot.ts hands over its own, and the title comes
 * back through another.
 */
export function render(page: string, answers: Record<string, unknown>): Promise<Drawn> {
  const run = queue.then(() => draw(page, answers));
  queue = run.catch(() => {});
  return run;
}

async function draw(page: string, answers: Record<string, unknown>): Promise<Drawn> {
  // Nothing goes stale or is asked again while the page is drawn; the guest has no account.
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  queryClient.setQueryData(ME_KEY, null);
  const reads: Record<string, Promise<Response>> = {};
  for (const [path, body] of Object.entries(answers)) reads[path] = Promise.resolve(Response.json(body));
  globalThis.__kubikEarly = { at: performance.now(), reads };
  try {
    await loadFirstPage(queryClient, page, Object.keys(answers));
  } finally {
    globalThis.__kubikEarly = undefined;
  }
  const errors: unknown[] = [];
  const { prelude } = await prerenderToNodeStream(<App queryClient={queryClient} ssrPath={page} />, {
    onError: (error) => void errors.push(error),
    // Every boundary in place: an outlined one would need React's inline scripts, which the
    // site's CSP (script-src 'self') refuses.
    progressiveChunkSize: Number.MAX_SAFE_INTEGER,
  });
  let markup = '';
  for await (const chunk of prelude) markup += String(chunk);
  const title = takeDrawnTitle();
  // Anything the server could not draw would be drawn by the browser anyway: then send nothing drawn.
  if (errors.length) throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
  return { markup, ...(title ? { title } : {}) };
}
