import { BUILTIN_PAGES, Page, PageLinksResponse, pagePath, type PageBody, type PagePlace } from '@kubik/contract';
import type * as Markdown from '@kubik/contract/markdown';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './pages.repo.ts';

export const LINKS_CACHE_KEY = 'pages.links';
const pageKey = (slug: string) => `page.${slug}`;

export const TEXTS = {
  notFound: 'Страница не найдена',
  builtin: 'Эту страницу нельзя удалить: она есть на сайте всегда. Можно изменить её текст.',
  deleted: 'Страница удалена',
} as const;

// markdown-it (~10 MB resident) loads with the first page rendered, not when the site starts.
let markdown: Promise<typeof Markdown> | undefined;

export async function toPage(row: repo.PageRow): Promise<Page> {
  const { renderMarkdown } = await (markdown ??= import('@kubik/contract/markdown'));
  return {
    slug: row.slug,
    title: row.title,
    body: row.body,
    html: renderMarkdown(row.body, { faq: row.slug === 'faq' }),
    place: row.place as PagePlace,
    position: Number(row.position),
    builtin: row.slug in BUILTIN_PAGES,
    path: pagePath(row.slug),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** GET /api/pages/{slug}: a filled page, rendered once and kept until it changes. */
export function pageBody(ctx: AppContext, slug: string): Promise<CachedBody> {
  return ctx.publicCache.get(pageKey(slug), async () => {
    const row = await repo.findPage(ctx.db, slug);
    // An empty page (оферта not written yet) is not on the site.
    if (!row || row.body.trim() === '') throw notFound(TEXTS.notFound);
    return Page.parse(await toPage(row));
  });
}

/** GET /api/pages: links for the footer and the menu. */
export function linksBody(ctx: AppContext): Promise<CachedBody> {
  return ctx.publicCache.get(LINKS_CACHE_KEY, async () => {
    const rows = await repo.linkedPages(ctx.db);
    const pages = rows
      .filter((r) => r.body.trim() !== '')
      .map((r) => ({ slug: r.slug, title: r.title, place: r.place as PagePlace, path: pagePath(r.slug) }));
    return PageLinksResponse.parse({ pages });
  });
}

export async function listAll(ctx: AppContext): Promise<Page[]> {
  const rows = await repo.listPages(ctx.db);
  return Promise.all(rows.map(toPage));
}

export async function getForAdmin(ctx: AppContext, slug: string): Promise<Page> {
  const row = await repo.findPage(ctx.db, slug);
  if (!row) throw notFound(TEXTS.notFound);
  return toPage(row);
}

async function invalidate(ctx: AppContext, slug: string): Promise<void> {
  await Promise.all([ctx.publicCache.invalidate(pageKey(slug)), ctx.publicCache.invalidate(LINKS_CACHE_KEY)]);
}

/** PUT /api/admin/pages/{slug}: saves the page, creating it when the address is new. */
export async function savePage(ctx: AppContext, actorId: number, slug: string, body: PageBody): Promise<Page> {
  const now = Date.now();
  const page = await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.lockPage(trx, ctx.dbKind, slug);
    const values = {
      title: body.title.trim(),
      body: body.body.replace(/\r\n?/g, '\n'),
      place: body.place ?? (before?.place as PagePlace | undefined) ?? 'none',
      position: body.position ?? before?.position ?? 0,
      updated_at: now,
      updated_by: actorId,
    };
    const row = await repo.upsertPage(trx, slug, values);
    const audit = (r: repo.PageRow) => ({ title: r.title, body: r.body, place: r.place, position: r.position });
    await recordAudit(trx, {
      actorId,
      action: 'page.update',
      entity: 'page',
      entityId: slug,
      before: before ? audit(before) : undefined,
      after: audit(row),
    });
    return toPage(row);
  });
  await invalidate(ctx, slug);
  return page;
}

export async function deletePage(ctx: AppContext, actorId: number, slug: string): Promise<void> {
  if (slug in BUILTIN_PAGES) throw badRequest(TEXTS.builtin, { code: 'page_builtin' });
  await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.findPage(trx, slug);
    if (!row) throw notFound(TEXTS.notFound);
    await repo.deletePage(trx, slug);
    await recordAudit(trx, {
      actorId,
      action: 'page.delete',
      entity: 'page',
      entityId: slug,
      before: { title: row.title, body: row.body, place: row.place },
    });
  });
  await invalidate(ctx, slug);
}
