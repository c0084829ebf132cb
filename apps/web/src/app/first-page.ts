import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { DONATE_KEY, fetchTiers } from '../features/donate/api.ts';
import { fetchNewsFeed, NEWS_FEED_KEY } from '../features/news/api.ts';
import { fetchPage, fetchPageLinks, PAGE_LINKS_KEY, pageKey } from '../features/pages/api.ts';
import { fetchShowcase, SHOWCASE_KEY } from '../features/players/api.ts';
import { fetchServers, SERVERS_PUBLIC_KEY } from '../features/servers/api.ts';
import { fetchMe, ME_KEY } from '../providers/auth.tsx';
import { preloadPage } from './router.tsx';
import { fetchSite, SITE_KEY } from '../providers/site.tsx';

interface Read {
  queryKey: QueryKey;
  queryFn: () => Promise<unknown>;
}

const pageRead = (slug: string): Read => ({ queryKey: pageKey(slug), queryFn: () => fetchPage(slug) });

/** What the first page shows from the API; boot.ts has asked for the same paths already. */
const EVERY_PAGE: Read[] = [
  { queryKey: SITE_KEY, queryFn: fetchSite },
  { queryKey: PAGE_LINKS_KEY, queryFn: fetchPageLinks },
  { queryKey: ME_KEY, queryFn: fetchMe },
];
const PAGE_READS: Record<string, Read[]> = {
  '/': [
    { queryKey: NEWS_FEED_KEY, queryFn: fetchNewsFeed },
    { queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers },
    { queryKey: SHOWCASE_KEY, queryFn: fetchShowcase },
  ],
  '/servers': [{ queryKey: SERVERS_PUBLIC_KEY, queryFn: fetchServers }],
  '/donate': [{ queryKey: DONATE_KEY, queryFn: fetchTiers }],
  '/rules': [pageRead('rules')],
  '/help': [pageRead('faq'), pageRead('help')],
};

/** How long the first render may wait for them: past that, the page shows its loading states. */
const FIRST_RENDER_WAIT_MS = 1000;

/**
 * Loads the first page's data and code before the app renders: one render with the content (and
 * one layout, and no loading text replaced a moment later) instead of two. boot.ts has usually got
 * the answers already, so this mostly waits for the page's own chunk.
 */
export async function loadFirstPage(queryClient: QueryClient, pathname: string): Promise<void> {
  const page = pathname.replace(/\/+$/, '') || '/';
  const reads = [...EVERY_PAGE, ...(PAGE_READS[page] ?? [])].map((read) =>
    // A failure is left to the screen's own query, which asks again when it mounts.
    queryClient.prefetchQuery({ ...read, retry: 1 }),
  );
  const all = Promise.all([...reads, preloadPage(page).catch(() => {})]);
  await Promise.race([all, new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS))]);
}
