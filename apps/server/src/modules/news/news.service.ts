import { NEWS_PAGE_SIZE, NewsFeedResponse, NewsListResponse, type NewsBody, type NewsItem } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import type { User } from '../users/users.repo.ts';
import { siteEvent } from '../users/users.ports.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './news.repo.ts';

export const TEXTS = {
  notFound: 'Новость не найдена',
  deleted: 'Новость удалена',
} as const;

/** Keys of the public answers in ctx.publicCache; every write drops both. */
export const FEED_CACHE_KEY = 'news.feed';
export const ALL_CACHE_KEY = 'news.all';

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

/** The cache keys of the feed's pages built so far (page 1 is FEED_CACHE_KEY); a write drops them all. */
const feedPageKeys = new Set<string>();

/** GET /api/tidings/news[?page=N], newest first, NEWS_PAGE_SIZE a page: one indexed query when the cache is cold. */
export function feedBody(ctx: AppContext, page = 1): Promise<CachedBody> {
  const key = page === 1 ? FEED_CACHE_KEY : `${FEED_CACHE_KEY}:${page}`;
  if (page > 1) feedPageKeys.add(key);
  return ctx.publicCache.get(key, async () => {
    // One more than a page tells whether another follows.
    const rows = await repo.listNewestPage(ctx.db, (page - 1) * NEWS_PAGE_SIZE, NEWS_PAGE_SIZE + 1);
    return NewsFeedResponse.parse({
      news: rows.slice(0, NEWS_PAGE_SIZE).map(toNewsItem),
      next_page: rows.length > NEWS_PAGE_SIZE ? page + 1 : null,
    });
  });
}

/** GET /api/tidings/all: the same items as a plain list. */
export function listBody(ctx: AppContext): Promise<CachedBody> {
  return ctx.publicCache.get(ALL_CACHE_KEY, async () => NewsListResponse.parse((await repo.listNewest(ctx.db)).map(toNewsItem)));
}

/** GET /api/tidings/{id}: one primary-key read, not cached (the feed's cache holds every item anyway). */
export async function getNews(ctx: AppContext, id: number): Promise<NewsItem> {
  const row = await repo.findNews(ctx.db, id);
  if (!row) throw notFound(TEXTS.notFound);
  return toNewsItem(row);
}

/** Call after the write has committed. */
async function invalidate(ctx: AppContext): Promise<void> {
  const pages = [...feedPageKeys];
  feedPageKeys.clear();
  await Promise.all([FEED_CACHE_KEY, ALL_CACHE_KEY, ...pages].map((key) => ctx.publicCache.invalidate(key)));
}

function fields(body: NewsBody) {
  return { title: body.title.trim(), content: body.content.trim(), image_url: body.image_url ? body.image_url.trim() : null };
}

export async function createNews(ctx: AppContext, actor: User, body: NewsBody): Promise<NewsItem> {
  const now = Date.now();
  const item = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.insertNews(trx, { ...fields(body), author_id: actor.id, created_at: now, updated_at: now });
    const created = toNewsItem(row);
    await recordAudit(trx, { actorId: actor.id, action: 'news.create', entity: 'news', entityId: row.id, after: created });
    await siteEvent.run(trx, { kind: 'news', id: row.id, title: created.title, text: body.content });
    return created;
  });
  await invalidate(ctx);
  return item;
}

export async function updateNews(ctx: AppContext, actor: User, id: number, body: NewsBody): Promise<NewsItem> {
  const item = await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findNews(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    const row = await repo.updateNews(trx, id, { ...fields(body), updated_at: Date.now() });
    if (!row) throw notFound(TEXTS.notFound);
    const updated = toNewsItem(row);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'news.update',
      entity: 'news',
      entityId: id,
      before: toNewsItem(before),
      after: updated,
    });
    return updated;
  });
  await invalidate(ctx);
  return item;
}

export async function deleteNews(ctx: AppContext, actor: User, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findNews(trx, id);
    if (!before) throw notFound(TEXTS.notFound);
    await repo.deleteNews(trx, id);
    await recordAudit(trx, { actorId: actor.id, action: 'news.delete', entity: 'news', entityId: id, before: toNewsItem(before) });
  });
  await invalidate(ctx);
}
