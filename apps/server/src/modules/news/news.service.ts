import type { NewsBody, NewsItem } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import type { UserRow } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './news.repo.ts';
import { ReadCache } from './read-cache.ts';

export const TEXTS = {
  notFound: 'Новость не найдена',
  deleted: 'Новость удалена',
} as const;

/** How stale another instance's copy of the feed may get (see ReadCache). */
export const NEWS_CACHE_MAX_AGE_MS = 30_000;

const caches = new WeakMap<AppContext, ReadCache<NewsItem[]>>();

/** One feed cache per app, so test apps and their databases never share one. */
export function newsCache(ctx: AppContext): ReadCache<NewsItem[]> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new ReadCache(async () => (await repo.listNewest(ctx.db)).map(toNewsItem), { maxAgeMs: NEWS_CACHE_MAX_AGE_MS });
    caches.set(ctx, cache);
  }
  return cache;
}

export function toNewsItem(row: repo.NewsRow): NewsItem {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    image_url: row.image_url,
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** Newest first. */
export function listNews(ctx: AppContext): Promise<NewsItem[]> {
  return newsCache(ctx).get();
}

function fields(body: NewsBody) {
  return { title: body.title.trim(), content: body.content.trim(), image_url: body.image_url ? body.image_url.trim() : null };
}

export async function createNews(ctx: AppContext, actor: UserRow, body: NewsBody): Promise<NewsItem> {
  const now = Date.now();
  const item = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.insertNews(trx, { ...fields(body), author_id: actor.id, created_at: now, updated_at: now });
    const created = toNewsItem(row);
    await recordAudit(trx, { actorId: actor.id, action: 'news.create', entity: 'news', entityId: row.id, after: created });
    return created;
  });
  newsCache(ctx).invalidate();
  return item;
}

export async function updateNews(ctx: AppContext, actor: UserRow, id: number, body: NewsBody): Promise<NewsItem> {
  const item = await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findNews(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    const row = await repo.updateNews(trx, id, { ...fields(body), updated_at: Date.now() });
    if (!row) throw notFound(TEXTS.notFound);
    const updated = toNewsItem(row);
    await recordAudit(trx, { actorId: actor.id, action: 'news.update', entity: 'news', entityId: id, before: toNewsItem(before), after: updated });
    return updated;
  });
  newsCache(ctx).invalidate();
  return item;
}

export async function deleteNews(ctx: AppContext, actor: UserRow, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findNews(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    await repo.deleteNews(trx, id);
    await recordAudit(trx, { actorId: actor.id, action: 'news.delete', entity: 'news', entityId: id, before: toNewsItem(before) });
  });
  newsCache(ctx).invalidate();
}
