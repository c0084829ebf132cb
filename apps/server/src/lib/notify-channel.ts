import type pg from 'pg';
import { loadPg } from '../db/index.ts';
import { backoffMs, type Backoff } from '../base/backoff.ts';

type Handler = (payload: string) => void;

/**
 * Reconnects after a lost connection: 250 ms, 500 ms, then every second while caches are off —
 * one connection attempt a second is cheap, and a database that is back is heard within a second
 * (/readyz also asks for an attempt at once, see reconnectNow).
 */
const RECONNECT: Backoff = { baseMs: 250, capMs: 1000, jitter: 0.2 };

export interface ChannelHealth {
  /** 'pg': instances share a database and hear each other through LISTEN/NOTIFY; 'local': one process (SQLite). */
  kind: 'pg' | 'local';
  /** Whether other instances' changes are heard right now (always true for 'local'). */
  up: boolean;
}

/**
 * The one PostgreSQL LISTEN/NOTIFY connection of this process, shared by every cache (public
 * answers, session users, settings). Subscribers listen on named channels; notify() reaches
 * every instance, this one included. When the connection is lost every onDown handler runs
 * (a cache then drops what it holds and stops caching, since it would miss other instances'
 * writes), and it reconnects with back-off; onUp handlers run once it listens again.
 * Without PostgreSQL (SQLite: one process) it is a local bus and always up.
 */
export class NotifyChannel {
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly downHandlers = new Set<() => void>();
  private readonly upHandlers = new Set<() => void>();
  private client: pg.Client | null = null;
  private listening = false;
  /** LISTENs sent for channels subscribed while connected and not yet confirmed by the server. */
  private pendingListens = 0;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  /** The connection's queries, one after another: pg (and pg@9 for good) refuses a query sent while one runs. */
  private turn: Promise<unknown> = Promise.resolve();
  private connecting: Promise<void> | null = null;
  /** Connection errors so far (failed connects and lost connections), for /metrics. */
  errors = 0;
  /** Times it listened again after a loss, for /metrics. */
  reconnects = 0;

  constructor(
    private readonly databaseUrl?: string,
    private readonly log?: { warn(obj: object, msg: string): void },
  ) {}

  get kind(): ChannelHealth['kind'] {
    return this.databaseUrl ? 'pg' : 'local';
  }

  /** True while changes on other instances are heard (always, without PostgreSQL). */
  get up(): boolean {
    // A channel subscribed a moment ago is not heard until its LISTEN is done: a cache filled in
    // that window would keep an entry whose invalidation went unheard, for good.
    return !this.databaseUrl || (this.listening && this.pendingListens === 0);
  }

  health(): ChannelHealth {
    return { kind: this.kind, up: this.up };
  }

  /** Calls handler with each payload sent on the channel (by any instance). Returns an unsubscribe function. */
  on(channel: string, handler: Handler): () => void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      if (this.client && this.listening) {
        this.pendingListens++;
        void this.send(this.client, `listen ${channel}`)
          .catch(() => {})
          .finally(() => this.pendingListens--);
      }
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  onDown(handler: () => void): () => void {
    this.downHandlers.add(handler);
    return () => this.downHandlers.delete(handler);
  }

  onUp(handler: () => void): () => void {
    this.upHandlers.add(handler);
    return () => this.upHandlers.delete(handler);
  }

  /**
   * Connects (PostgreSQL only). When the database cannot be reached the site starts anyway, with
   * caches off and /readyz saying so, and keeps trying in the background.
   */
  async start(): Promise<void> {
    if (!this.databaseUrl || this.stopped) return;
    try {
      await this.attempt();
    } catch (err) {
      this.log?.warn({ err }, 'PostgreSQL notification channel unreachable: caches are off until it is up');
      this.scheduleReconnect();
    }
  }

  /** Tries to connect now when down (a readiness probe found the database back); resolves when the attempt ends. */
  async reconnectNow(): Promise<void> {
    if (!this.databaseUrl || this.stopped || this.client) return;
    if (!this.connecting) {
      clearTimeout(this.retry);
      this.attempt().catch(() => {
        if (!this.stopped) this.scheduleReconnect();
      });
    }
    await this.connecting?.catch(() => {});
  }

  /** Sends payload on channel to every instance (this one included). Best effort: a lost channel is reported by health(). */
  async notify(channel: string, payload: string): Promise<void> {
    if (!this.databaseUrl) {
      this.deliver(channel, payload);
      return;
    }
    const client = this.client;
    if (client && this.listening) {
      await this.send(client, 'select pg_notify($1, $2)', [channel, payload]).catch(() => {});
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => {});
  }

  /** One connection attempt at a time; a failure is counted. */
  private attempt(): Promise<void> {
    if (!this.connecting) {
      this.connecting = this.connect()
        .catch((err: unknown) => {
          this.errors += 1;
          throw err;
        })
        .finally(() => (this.connecting = null));
    }
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new (loadPg().Client)({ connectionString: this.databaseUrl });
    client.on('notification', (msg) => this.deliver(msg.channel, msg.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${channel}`);
    } catch (err) {
      client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.turn = Promise.resolve();
    this.client = client;
    this.listening = true;
    if (this.failures > 0) {
      this.reconnects += 1;
      this.log?.warn({}, 'PostgreSQL notification channel back: caches are on');
    }
    this.failures = 0;
    for (const h of this.upHandlers) h();
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    client.end().catch(() => {});
    for (const h of this.downHandlers) h();
    if (this.stopped) return;
    this.errors += 1;
    this.log?.warn({ err }, 'PostgreSQL notification channel lost: caches are off until it is back');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.failures += 1;
    clearTimeout(this.retry);
    this.retry = setTimeout(
      () => {
        this.attempt().catch(() => {
          if (!this.stopped) this.scheduleReconnect();
        });
      },
      backoffMs(this.failures, RECONNECT),
    );
    this.retry.unref();
  }

  private send(client: pg.Client, text: string, values?: unknown[]): Promise<unknown> {
    const done = this.turn.then(() => client.query(text, values));
    this.turn = done.catch(() => {});
    return done;
  }

  private deliver(channel: string, payload: string): void {
    for (const h of this.handlers.get(channel) ?? []) h(payload);
  }
}
