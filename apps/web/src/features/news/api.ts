import type { MessageResponse, NewsBody, NewsFeedResponse, NewsItem } from '@kubik/contract';
import { api } from '../../lib/api.ts';

/** Every news query starts with this key, so one invalidation refreshes the feed and the table. */
export const NEWS_KEY = ['news'] as const;
export const NEWS_FEED_KEY = [...NEWS_KEY, 'feed'] as const;
export const NEWS_ALL_KEY = [...NEWS_KEY, 'all'] as const;

/** The feed's first page ({ news, next_page }); fetchNewsPage reads the following ones. */
export const fetchNewsFeed = () => api<NewsFeedResponse>('/api/tidings/news');
export const fetchNewsPage = (page: number) => api<NewsFeedResponse>(`/api/tidings/news?page=${page}`);
export const newsItemKey = (id: number) => [...NEWS_KEY, 'item', id] as const;
export const fetchNewsItem = (id: number) => api<NewsItem>(`/api/tidings/${id}`);
/** The item's own page. */
export const newsPath = (id: number) => `/news/${id}`;
export const fetchAllNews = () => api<NewsItem[]>('/api/tidings/all');
export const createNews = (body: NewsBody) => api<NewsItem>('/api/tidings/news', { method: 'POST', body });
export const updateNews = (id: number, body: NewsBody) => api<NewsItem>(`/api/tidings/${id}`, { method: 'PUT', body });
export const deleteNews = (id: number) => api<MessageResponse>(`/api/tidings/${id}`, { method: 'DELETE' });

// Spec §9; the web app imports only types from the contract, so zod stays out of its bundle.
export const NEWS_PREVIEW_CHARS = 100;

/** The first `limit` characters on one line, with '…' when something was cut. */
export function preview(text: string, limit = NEWS_PREVIEW_CHARS): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length > limit ? `${chars.slice(0, limit).join('').trimEnd()}…` : chars.join('');
}
