import type { MessageResponse, Page, PageBody, PageLink, PageLinksResponse } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api.ts';

/** Every page query starts with this key: a save refreshes the page, the links and the admin list. */
export const PAGES_KEY = ['pages'] as const;
export const PAGE_LINKS_KEY = [...PAGES_KEY, 'links'] as const;
export const pageKey = (slug: string) => [...PAGES_KEY, 'page', slug] as const;
export const ADMIN_PAGES_KEY = [...PAGES_KEY, 'admin'] as const;

export const PAGE_LINKS_PATH = '/api/pages';
export const pagePathOf = (slug: string) => `/api/pages/${encodeURIComponent(slug)}`;

export const fetchPageLinks = async () => (await api<PageLinksResponse>(PAGE_LINKS_PATH)).pages;
export const fetchPage = (slug: string) => api<Page>(pagePathOf(slug));
export const fetchAdminPages = () => api<Page[]>('/api/admin/pages');
export const savePage = (slug: string, body: PageBody) =>
  api<Page>(`/api/admin/pages/${encodeURIComponent(slug)}`, { method: 'PUT', body });
export const deletePage = (slug: string) => api<MessageResponse>(`/api/admin/pages/${encodeURIComponent(slug)}`, { method: 'DELETE' });

/** The links the owner put into the footer or the menu (filled pages only). */
export function usePageLinks(place: PageLink['place']): PageLink[] {
  const { data } = useQuery({ queryKey: PAGE_LINKS_KEY, queryFn: fetchPageLinks, staleTime: 5 * 60_000 });
  return (data ?? []).filter((p) => p.place === place);
}
