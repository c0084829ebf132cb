import type { Config } from './config.ts';
import type { Db, DbKind } from './db/index.ts';
import type { Mailer } from './lib/mailer.ts';
import type { PublicCache } from './lib/public-cache.ts';
import type { RateLimiter } from './lib/rate-limit.ts';
import type { UserCache } from './lib/user-cache.ts';
import type { DeliveryWorker } from './modules/deliveries/deliveries.worker.ts';
import type { MailWorker } from './modules/mail/mail.outbox.ts';

/** What every module gets: configuration, the database and the shared services. */
export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  dbKind: DbKind;
  mailer: Mailer;
  mailWorker: MailWorker;
  /** The delivery queue's sender: kick() after enqueueDelivery commits (modules/deliveries). */
  deliveries: DeliveryWorker;
  limiter: RateLimiter;
  /** Serialized public answers, dropped on write on every instance (lib/public-cache.ts). */
  publicCache: PublicCache;
  /** Session users and worn skins, dropped on any write to them on every instance (lib/user-cache.ts). */
  userCache: UserCache;
}
