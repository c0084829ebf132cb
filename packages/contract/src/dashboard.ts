import { z } from 'zod';
import { DELIVERY_SOURCES, DELIVERY_STATES, DELIVERY_WAITING } from './deliveries.ts';

// GET /api/admin/dashboard: the owner's overview at /admin.

/** Days in the revenue and registration series, today included. */
export const DASHBOARD_DAYS = 30;
/** A delivery pending longer than this since it was queued «waits long». */
export const DASHBOARD_WAITING_LONG_MIN = 15;

export const DashboardDay = z.object({
  /** YYYY-MM-DD in the site's time zone. */
  date: z.string(),
  /** Roubles (kopecks allowed): succeeded top-ups paid that day, the owner's bonuses not counted. */
  topups: z.number(),
  /** Roubles spent from balances that day (shop items and privileges). */
  purchases: z.number(),
  /** Roubles returned to balances that day for purchases (refunds). */
  refunds: z.number(),
  registrations: z.number(),
});
export type DashboardDay = z.infer<typeof DashboardDay>;

export const DashboardDelivery = z.object({
  id: z.number(),
  source: z.enum(DELIVERY_SOURCES),
  label: z.string(),
  state: z.enum(DELIVERY_STATES),
  /** failed | unknown | waiting (not given yet: pending, or sent and not answered yet). */
  reason: z.enum(['failed', 'unknown', 'waiting']),
  /** Why a pending one waits (the server is down, no server to send to, the player is not in the game); null: its turn has not come. */
  waiting: z.enum(DELIVERY_WAITING).nullable(),
  username: z.string().nullable(),
  server: z.string().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
});
export type DashboardDelivery = z.infer<typeof DashboardDelivery>;

export const DashboardOrder = z.object({
  /** shop: an item from the shop; privilege: a donate tier bought. */
  kind: z.enum(['shop', 'privilege']),
  id: z.number(),
  user_id: z.number(),
  username: z.string(),
  /** «Алмаз ×3», «VIP на 3 мес.» */
  title: z.string(),
  /** Roubles debited. */
  total: z.number(),
  created_at: z.string(),
});
export type DashboardOrder = z.infer<typeof DashboardOrder>;

export const DashboardPayment = z.object({
  id: z.string(),
  user_id: z.number(),
  username: z.string(),
  provider: z.string(),
  /** Roubles. */
  amount: z.number(),
  /** pending | succeeded | canceled | refunding | refunded */
  status: z.string(),
  created_at: z.string(),
});
export type DashboardPayment = z.infer<typeof DashboardPayment>;

export const AdminDashboard = z.object({
  /** IANA zone the days are counted in (TIME_ZONE, Europe/Moscow by default). */
  time_zone: z.string(),
  /** Oldest first, DASHBOARD_DAYS of them, today last (days without anything are zeros). */
  days: z.array(DashboardDay),
  totals: z.object({ topups: z.number(), purchases: z.number(), refunds: z.number(), registrations: z.number() }),
  online: z.object({
    /** Players on the servers that are up now, by the last checks. */
    now: z.number(),
    /** Sum of the slots of the servers that are up. */
    max: z.number(),
    servers_online: z.number(),
    servers_total: z.number(),
    /** Most players at once over all servers in the last 24 hours and 30 days, from the monitor's history. */
    peak_24h: z.number(),
    peak_24h_at: z.string().nullable(),
    peak_30d: z.number(),
    peak_30d_at: z.string().nullable(),
  }),
  deliveries: z.object({
    /** What failed: the server refused it, or never confirmed it (it may have run). */
    failed: z.number(),
    unknown: z.number(),
    /** Of those not given yet, how many wait longer than DASHBOARD_WAITING_LONG_MIN. */
    waiting: z.number(),
    /** Everything not given yet, by why it waits: sent and not answered yet, the server down, no server, the player not in the game, queued. */
    pending: z.object({
      total: z.number(),
      sending: z.number(),
      server_down: z.number(),
      no_server: z.number(),
      player_offline: z.number(),
      queued: z.number(),
    }),
    /** The newest failures, at most 10. */
    items: z.array(DashboardDelivery),
    /** The longest waiting of those not given yet, at most 10. */
    waiting_items: z.array(DashboardDelivery),
  }),
  /** At most 10 each, newest first. */
  latest_orders: z.array(DashboardOrder),
  latest_payments: z.array(DashboardPayment),
});
export type AdminDashboard = z.infer<typeof AdminDashboard>;
