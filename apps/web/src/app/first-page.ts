import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { DONATE_KEY, fetchTiers } from '../features/donate/api.ts';
import { fetchNewsFeed, NEWS_FEED_KEY } from '../features/news/api.ts';
import { fetchPage, fetchPageLinks, PAGE_LINKS_KEY, pageKey } from '../features/pages/api.ts';
import { fetchShowcase, SHOWCASE_KEY } from '../features/players/api.ts';
import { fetchServers, SERVERS_PUBLIC_KEY } from '../features/servers/api.ts';
import { fetchMe, ME_KEY } from '../providers/auth.tsx';
import { EVERY_PAGE_READS, PAGE_READS, pageOf } from './first-reads.ts';
import { preloadPage } from './router.tsx';
import { fetchSite, SITE_KEY } from '../providers/site.tsx';

interface Read {
  queryKey: QueryKey;
  queryFn: () => Promise<unknown>;
}

const pageRead = (slug: string): Read => ({ queryKey: pageKey(slug), queryFn: () => fetchPage(slug) });

/** The query behind each path of app/first-reads.ts (whose answers boot.ts may hold already). */
const READS: Record<string, Read> = {
  '/api/site/settings': { queryKey: SITE_KEY, queryFn: fetchSite },
  '/api/pages': { queryKey: PAGE_LINKS_KEY, queryFn: fetchPageLinks },
  '/api/tidings/news': { queryKey: NEWS_FEED_KEY, queryFn: fetchNewsFeed },
  '/api/servers/': { queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers },
  '/api/home/showcase': { queryKey: SHOWCASE_KEY, queryFn: fetchShowcase },
  '/api/donate/fully': { queryKey: DONATE_KEY, queryFn: fetchTiers },
  '/api/pages/rules': pageRead('rules'),
  '/api/pages/faq': pageRead('faq'),
  '/api/pages/help': pageRead('help'),
};
const ME_READ: Read = { queryKey: ME_KEY, queryFn: fetchMe };

/** How long the first render may wait for them: past that, the page shows its loading states. */
const FIRST_RENDER_WAIT_MS = 1000;

/**
 * Loads the first page's data (or `only` those paths of it) and code before the app renders: one
 * render with the content (and one layout, and no loading text replaced a moment later) instead
 * of two. boot.ts has usually got the answers already, so this mostly waits for the page's chunk.
 */
export async function loadFirstPage(queryClient: QueryClient, pathname: string, only?: string[]): Promise<void> {
  const page = pageOf(pathname);
  // A page the server drew is taken over with what it was drawn from, and nothing more (main.tsx).
  const paths = [...EVERY_PAGE_READS, ...(PAGE_READS[page] ?? [])].filter((path) => !only || only.includes(path));
  const reads = [ME_READ, ...paths.map((path) => READS[path]!)].map((read) =>
    // A failure is left to the screen's own query, which asks again when it mounts.
    queryClient.prefetchQuery({ ...read, retry: 1 }),
  );
  const all = Promise.all([...reads, preloadPage(page).catch(() => {})]);
  await Promise.race([all, new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS))]);
}
