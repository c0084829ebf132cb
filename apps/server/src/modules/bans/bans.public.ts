import {
  PUBLIC_BANS_MAX_PAGES,
  PUBLIC_BANS_PAGE_SIZE,
  type PublicBan,
  type PublicBanKind,
  type PublicBansPage,
  type PublicBansQuery,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import * as repo from './bans.repo.ts';

/** The list reaches this many rows of a kind (every source together). */
export const PUBLIC_BANS_CAP = PUBLIC_BANS_PAGE_SIZE * PUBLIC_BANS_MAX_PAGES;

/**
 * Punishments kept elsewhere (a game plugin's tables), read for the public list. Rows come newest
 * first, ties by the higher id, as an index on the time gives them; a source never hands out a
 * silent punishment, an address or a punishment without a player.
 */
export interface ExternalBanSource {
  kinds: readonly PublicBanKind[];
  /** How many rows of a kind match, counted no further than `cap`. */
  count(kind: PublicBanKind, q: string | undefined, cap: number): Promise<number>;
  /** Rows `offset` … `offset + limit - 1` of a kind in that order. */
  page(kind: PublicBanKind, q: string | undefined, offset: number, limit: number): Promise<PublicBan[]>;
}

function siteRow(r: Awaited<ReturnType<typeof repo.publicBans>>[number], now: number): PublicBan {
  const until = r.until === null ? null : Number(r.until);
  return {
    source: 'site',
    kind: 'ban',
    username: r.username,
    reason: r.reason,
    by: r.by ?? null,
    since: Number(r.created_at),
    until,
    active: r.lifted_at === null && (until === null || until > now),
    server: null,
  };
}

/** The order of the list: newest first; at one moment the site's before the plugin's; then the higher id. */
type Ranked = { row: PublicBan; source: 0 | 1; id: number };
const before = (a: Ranked, b: Ranked) =>
  a.row.since !== b.row.since ? a.row.since > b.row.since : a.source !== b.source ? a.source < b.source : a.id > b.id;

/**
 * One page of two ordered lists merged, read without the rows ahead of the page in the big one.
 * The site's bans are few: their first `offset + size` come whole. Of the plugin's, the page can
 * only hold rows from `offset - (site rows read)` on — each earlier row has fewer than `offset`
 * rows ahead of it — so only `size + min(offset, site rows)` of them are read.
 */
export async function mergedPage(
  site: Ranked[],
  external: (offset: number, limit: number) => Promise<Ranked[]>,
  offset: number,
  size: number,
): Promise<PublicBan[]> {
  const from = Math.max(0, offset - site.length);
  const ext = await external(from, offset + size - from);
  const out: { at: number; row: PublicBan }[] = [];
  // Each row's place: the rows of its own list before it plus those of the other list before it.
  ext.forEach((e, i) => {
    const at = from + i + site.filter((s) => before(s, e)).length;
    if (at >= offset && at < offset + size) out.push({ at, row: e.row });
  });
  site.forEach((s, j) => {
    const ahead = ext.filter((e) => before(e, s)).length;
    // All read rows ahead and the list ran out, or ahead lie also the unread ones after the window.
    if (ahead === ext.length && ext.length === offset + size - from) return;
    const at = j + from + ahead;
    if (at >= offset && at < offset + size) out.push({ at, row: s.row });
  });
  return out.sort((a, b) => a.at - b.at).map((o) => o.row);
}

export async function publicBanPage(
  ctx: AppContext,
  query: PublicBansQuery,
  external: ExternalBanSource | null,
  now = Date.now(),
): Promise<PublicBansPage> {
  const size = PUBLIC_BANS_PAGE_SIZE;
  const kinds: PublicBanKind[] = ['ban', ...(external?.kinds ?? []).filter((k) => k !== 'ban')];
  const kind = kinds.includes(query.kind) ? query.kind : 'ban';
  const q = query.q || undefined;
  const offset = (query.page - 1) * size;
  const ext = external && external.kinds.includes(kind) ? external : null;
  const withSite = kind === 'ban';

  const [siteCount, extCount] = await Promise.all([
    withSite ? repo.countPublicBans(ctx.db, q, PUBLIC_BANS_CAP) : 0,
    ext ? ext.count(kind, q, PUBLIC_BANS_CAP) : 0,
  ]);
  const total = Math.min(PUBLIC_BANS_CAP, siteCount + extCount);
  const pages = Math.max(1, Math.ceil(total / size));
  let items: PublicBan[] = [];
  if (offset < total) {
    if (!ext) items = (await repo.publicBans(ctx.db, q, offset, size)).map((r) => siteRow(r, now));
    else if (!withSite || siteCount === 0) items = await ext.page(kind, q, offset, size);
    else {
      const site = (await siteRows(ctx.db, q, offset + size, now)).map((r, i) => ({ row: r, source: 0 as const, id: -i }));
      items = await mergedPage(
        site,
        async (from, limit) => (await ext.page(kind, q, from, limit)).map((row, i) => ({ row, source: 1 as const, id: -(from + i) })),
        offset,
        size,
      );
    }
  }
  return { items, page: query.page, pages, kind, kinds };
}

async function siteRows(db: Db, q: string | undefined, limit: number, now: number): Promise<PublicBan[]> {
  return (await repo.publicBans(db, q, 0, limit)).map((r) => siteRow(r, now));
}
