import { DonationGoal } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { toRoubles } from '../../lib/money.ts';
import type { CachedBody } from '../../lib/public-cache.ts';
import { SiteSettingsDoc } from '../site/site.settings.ts';
import { hiddenPlayers } from '../users/users.ports.ts';
import * as repo from './donate.community.repo.ts';

export const GOAL_CACHE_KEY = 'donate.goal';
/** The goal's answer is built at most this often: the store's public reads stay one memory hit. */
export const GOAL_MAX_AGE_MS = 60_000;
const LATEST = 8;
const TOP = 5;

/** The Moscow month of `now`: its name and its bounds (epoch ms). */
export function moscowMonth(now: number): { month: string; from: number; to: number } {
  const d = new Date(now + 3 * 3_600_000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const from = Date.UTC(y, m, 1) - 3 * 3_600_000;
  const to = Date.UTC(y, m + 1, 1) - 3 * 3_600_000;
  return { month: `${y}-${String(m + 1).padStart(2, '0')}`, from, to };
}

/** GET /api/donate/goal: built from four bounded queries at most once a minute (or when the settings change). */
export function goalBody(ctx: AppContext): Promise<CachedBody> {
  return ctx.publicCache.get(
    GOAL_CACHE_KEY,
    async () => {
      const now = Date.now();
      const settings = await ctx.settings.get(SiteSettingsDoc);
      const { month, from, to } = moscowMonth(now);
      const collected = await repo.collectedBetween(ctx.db, from, to);
      const top = await repo.topPayers(ctx.db, from, to, TOP * 2);
      const orders = await repo.latestOrders(ctx.db, LATEST * 2);
      const tiers = await repo.latestTiers(ctx.db, LATEST * 2);
      // A player who hid their public profile is not named on a public page.
      const ids = [...new Set([...top, ...orders, ...tiers].map((r) => Number('id' in r ? r.id : r.user_id)))];
      const hidden = await hiddenPlayers.ask().ids(ctx.db, ids);
      const show = settings.show_purchase_amounts;
      const latest = [
        ...orders.map((o) => ({
          user: Number(o.user_id),
          nickname: o.username,
          item: Number(o.quantity) > 1 ? `${o.item} × ${Number(o.quantity)}` : o.item,
          total: Number(o.total),
          at: Number(o.created_at),
        })),
        ...tiers.map((t) => ({
          user: Number(t.user_id),
          nickname: t.username,
          item: `${t.item} на ${Number(t.months)} мес.`,
          total: Number(t.total),
          at: Number(t.created_at),
        })),
      ]
        .filter((r) => !hidden.has(r.user))
        .sort((a, b) => b.at - a.at)
        .slice(0, LATEST)
        .map((r) => ({ nickname: r.nickname, item: r.item, amount: show ? toRoubles(r.total) : null, at: r.at }));
      const goal = settings.donation_goal;
      return DonationGoal.parse({
        goal,
        collected: toRoubles(collected),
        percent: goal > 0 ? Math.min(100, Math.floor((toRoubles(collected) / goal) * 100)) : 0,
        month,
        latest,
        top: top
          .filter((r) => !hidden.has(Number(r.id)))
          .slice(0, TOP)
          .map((r) => ({ nickname: r.username, amount: show ? toRoubles(Number(r.total)) : null })),
      });
    },
    'application/json; charset=utf-8',
    { maxAgeMs: GOAL_MAX_AGE_MS },
  );
}
