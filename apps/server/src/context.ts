import type { Config } from './config.ts';
import type { Db, DbKind } from './db/index.ts';
import type { ClaimOwner, JobRunner, Scheduler } from './lib/jobs/index.ts';
import type { Mailer } from './lib/mailer.ts';
import type { Metrics } from './lib/metrics.ts';
import type { NotifyChannel } from './lib/notify-channel.ts';
import type { PublicCache } from './lib/public-cache.ts';
import type { RateLimiter } from './lib/rate-limit.ts';
import type { SettingsStore } from './lib/settings.ts';
import type { UserCache } from './lib/user-cache.ts';

/** What every module gets: configuration, the database and the shared services. */
export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  dbKind: DbKind;
  mailer: Mailer;
  /**
   * Background jobs of this process (lib/jobs/runner.ts): features register theirs when their
   * routes are registered; app.ts starts them (when config.workers) and stops them.
   */
  jobs: JobRunner;
  /** Whose claims of background work this process writes, so a restart takes its own back at once (lib/jobs/claim-owner.ts). */
  claims: ClaimOwner;
  /** Periodic jobs that run once per period across all instances (lib/jobs/schedule.ts). */
  schedule: Scheduler;
  /** Rate-limit counters: in memory on SQLite, shared by all instances on PostgreSQL (lib/rate-limit.ts). */
  limiter: RateLimiter;
  /** Serialized public answers, dropped on write on every instance (lib/public-cache.ts). */
  publicCache: PublicCache;
  /** Session users and worn skins, dropped on any write to them on every instance (lib/user-cache.ts). */
  userCache: UserCache;
  /** The one PostgreSQL LISTEN/NOTIFY connection; health() feeds /readyz (lib/notify-channel.ts). */
  notifications: NotifyChannel;
  /** Prometheus metrics of this process (lib/metrics.ts); features add gauges read on each scrape. */
  metrics: Metrics;
  /** Owner-edited settings documents, cached and invalidated on every instance (lib/settings.ts). */
  settings: SettingsStore;
}
