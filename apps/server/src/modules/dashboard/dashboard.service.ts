import { AdminDashboard, DASHBOARD_DAYS, DASHBOARD_WAITING_LONG_MIN, type DashboardOrder } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { toRoubles } from '../../lib/money.ts';
import { lastDays } from '../../lib/zoned-days.ts';
import * as repo from './dashboard.repo.ts';

const LATEST = 10;
const HOUR = 3_600_000;
const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/**
 * «Алмаз ×16» for one purchase of 16 pieces; an item whose name says its pieces already
 * («Алмазы ×16») is not told them twice: «Алмазы ×16», «Алмазы ×16 (3 шт.)».
 */
export function orderTitle(name: string, quantity: number, pieces: number): string {
  const named = pieces > 1 && new RegExp(`[×xх]\\s*${pieces}$`, 'i').test(name.trim());
  if (named) return quantity > 1 ? `${name} (${quantity} шт.)` : name;
  return quantity * pieces > 1 ? `${name} ×${quantity * pieces}` : name;
}

type DeliveryRow = Awaited<ReturnType<typeof repo.failedDeliveries>>[number];

function toDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    source: d.source,
    label: d.label,
    state: d.state,
    reason: d.state === 'failed' ? 'failed' : d.state === 'unknown' ? 'unknown' : 'waiting',
    waiting: d.state === 'pending' ? d.waiting : null,
    username: d.username ?? null,
    server: d.server ?? null,
    last_error: d.last_error,
    created_at: iso(d.created_at),
  };
}

/** GET /api/admin/dashboard: every number from the database as of `now`, days in the site's time zone. */
export async function dashboard(ctx: AppContext, now = Date.now()): Promise<AdminDashboard> {
  const zone = ctx.config.timeZone;
  const days = lastDays(now, DASHBOARD_DAYS, zone);
  const waitingBefore = now - DASHBOARD_WAITING_LONG_MIN * 60_000;
  // A check period is the finest the history has for the last 7 days; older rows are hourly peaks.
  const checkBucket = Math.max(ctx.config.monitor.intervalMs, 1000);
  const [topups, spending, registrations, online, peak24, peak30, counts, failures, waits, shopOrders, privilegeOrders, payments] =
    await Promise.all([
      repo.topupsByDay(ctx.db, days),
      repo.spendingByDay(ctx.db, days),
      repo.registrationsByDay(ctx.db, days),
      repo.onlineNow(ctx.db),
      repo.peakOnline(ctx.db, now - 24 * HOUR, now + 1, checkBucket),
      repo.peakOnline(ctx.db, now - DASHBOARD_DAYS * 24 * HOUR, now + 1, HOUR),
      repo.deliveryCounts(ctx.db, waitingBefore),
      repo.failedDeliveries(ctx.db, LATEST),
      repo.waitingDeliveries(ctx.db, LATEST),
      repo.latestShopOrders(ctx.db, LATEST),
      repo.latestPrivilegePurchases(ctx.db, LATEST),
      repo.latestPayments(ctx.db, LATEST),
    ]);

  const series = days.map((d, i) => ({
    date: d.date,
    topups: toRoubles(topups[i] ?? 0),
    purchases: toRoubles(spending[i]?.purchases ?? 0),
    refunds: toRoubles(spending[i]?.refunds ?? 0),
    registrations: registrations[i] ?? 0,
  }));
  const sum = (pick: (i: number) => number) => days.reduce((acc, _d, i) => acc + pick(i), 0);

  const orders: DashboardOrder[] = [
    ...shopOrders.map((o) => ({
      kind: 'shop' as const,
      id: o.id,
      user_id: o.user_id,
      username: o.username,
      title: orderTitle(o.item_name, o.quantity, Number(o.pieces)),
      total: toRoubles(Number(o.total)),
      created_at: iso(o.created_at),
    })),
    ...privilegeOrders.map((p) => ({
      kind: 'privilege' as const,
      id: p.id,
      user_id: p.user_id,
      username: p.username,
      title: `${p.tier_title} на ${p.months} мес.`,
      total: toRoubles(Number(p.total)),
      created_at: iso(p.created_at),
    })),
  ]
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, LATEST);

  // The live count may be above anything the history holds yet.
  const peak = (p: { total: number; at: number } | null) =>
    p && p.total >= online.now ? { n: p.total, at: iso(p.at) } : { n: online.now, at: online.now > 0 ? iso(now) : p ? iso(p.at) : null };
  const p24 = peak(peak24);
  const p30 = peak(peak30);

  return AdminDashboard.parse({
    time_zone: zone,
    days: series,
    totals: {
      topups: toRoubles(sum((i) => topups[i] ?? 0)),
      purchases: toRoubles(sum((i) => spending[i]?.purchases ?? 0)),
      refunds: toRoubles(sum((i) => spending[i]?.refunds ?? 0)),
      registrations: sum((i) => registrations[i] ?? 0),
    },
    online: {
      now: online.now,
      max: online.max,
      servers_online: online.up,
      servers_total: online.total,
      peak_24h: p24.n,
      peak_24h_at: p24.at,
      peak_30d: p30.n,
      peak_30d_at: p30.at,
    },
    deliveries: { ...counts, items: failures.map(toDelivery), waiting_items: waits.map(toDelivery) },
    latest_orders: orders,
    latest_payments: payments.map((p) => ({
      id: p.id,
      user_id: p.user_id,
      username: p.username,
      provider: p.provider,
      amount: toRoubles(Number(p.amount)),
      status: p.status,
      created_at: iso(p.created_at),
    })),
  });
}
