import type { AppContext } from '../../context.ts';

/** The public item list's cache entry, dropped on every instance when items or categories change. */
export const LIST_CACHE_KEY = 'shop:all';

export const dropListCache = (ctx: AppContext) => ctx.publicCache.invalidate(LIST_CACHE_KEY);
