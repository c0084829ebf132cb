import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { toRoubles } from '../../lib/money.ts';
import { cachedSession } from '../users/users.logins.ts';
import { countUnread, lastNoticeId, noticesAfter, userBalance } from './notices.repo.ts';
import { onLocalSignal, parseSignal, USER_EVENTS_CHANNEL, type UserSignal } from './notices.service.ts';

/** Open streams one account may hold on one instance (tabs, devices); one more is refused. */
export const STREAMS_PER_USER = 5;
/** A comment line this often keeps proxies (nginx: proxy_read_timeout 60 s) and browsers from closing an idle stream; the session is checked again then. */
export const HEARTBEAT_MS = 20_000;
/** A client that does not read (its socket buffer this full) is dropped; EventSource reconnects and catches up. */
const MAX_BUFFERED = 256 * 1024;

interface Stream {
  userId: number;
  token: string;
  expiresAt: number;
  reply: FastifyReply;
  /** The newest notice this stream has sent or the page already had. */
  lastNoticeId: number;
}

interface Pending {
  balance: boolean;
  notice: boolean;
  read: boolean;
  running: boolean;
}

/**
 * The open GET /api/user/events streams of this instance, by player. Signals (notices.service.ts)
 * name a player and what changed; only a player with a stream here costs a query: the balance,
 * or the notices after the last one sent and the unread count. Signals for one player are handled
 * one batch at a time, so a burst costs one read. One timer serves every stream: a heartbeat
 * comment and a check of its session (cached by the user cache); an ended session closes it.
 */
export class EventHub {
  private readonly streams = new Map<number, Set<Stream>>();
  private readonly pending = new Map<number, Pending>();
  private readonly unsubscribe: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: { warn(obj: object, msg: string): void },
  ) {
    eventHubs.set(ctx, this);
    if (ctx.dbKind === 'pg') {
      this.unsubscribe.push(
        ctx.notifications.on(USER_EVENTS_CHANNEL, (payload) => {
          const s = parseSignal(payload);
          if (s) this.signal(s);
        }),
        // Signals sent while the channel was down went unheard: every stream catches up.
        ctx.notifications.onUp(() => this.signal({ u: null, e: 'balance' })),
      );
    } else {
      this.unsubscribe.push(onLocalSignal((s) => this.signal(s)));
    }
  }

  get size(): number {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  count(userId: number): number {
    return this.streams.get(userId)?.size ?? 0;
  }

  /** Takes over the reply and keeps it open as an event stream. */
  async open(req: FastifyRequest, reply: FastifyReply, userId: number, token: string, expiresAt: number): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // nginx and other buffering proxies pass each event on at once.
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.socket?.setNoDelay(true);
    // Listed before the first read, so no change between that read and the listing goes unheard;
    // notices wait until the stream knows which ones the page already has.
    const stream: Stream = { userId, token, expiresAt, reply, lastNoticeId: Number.MAX_SAFE_INTEGER };
    let set = this.streams.get(userId);
    if (!set) this.streams.set(userId, (set = new Set()));
    set.add(stream);
    req.raw.on('close', () => this.drop(stream));
    this.startTimer();
    try {
      const [balance, lastId] = await Promise.all([this.balanceOf(userId), lastNoticeId(this.ctx.db, userId)]);
      stream.lastNoticeId = lastId;
      // Reconnect 3 s after a break; the balance now, so a page that missed changes is right again.
      this.write(stream, `retry: 3000\n\n` + event('balance', { balance }));
    } catch (err) {
      this.log.warn({ err, userId }, 'event stream: could not start');
      res.destroy();
      this.drop(stream);
    }
  }

  /** Ends every stream (the instance is shutting down); the browsers reconnect to another one. */
  closeAll(): void {
    for (const set of this.streams.values()) for (const s of set) s.reply.raw.end();
    this.streams.clear();
    this.stopTimer();
  }

  stop(): void {
    this.closeAll();
    for (const u of this.unsubscribe) u();
  }

  private signal(s: UserSignal): void {
    const users = s.u === null ? [...this.streams.keys()] : this.streams.has(s.u) ? [s.u] : [];
    for (const userId of users) this.queue(userId, s.e);
    // After the channel came back: notices too.
    if (s.u === null && s.e === 'balance') for (const userId of users) this.queue(userId, 'notice');
  }

  private queue(userId: number, what: UserSignal['e']): void {
    let p = this.pending.get(userId);
    if (!p) this.pending.set(userId, (p = { balance: false, notice: false, read: false, running: false }));
    p[what] = true;
    if (!p.running) void this.drain(userId, p);
  }

  private async drain(userId: number, p: Pending): Promise<void> {
    p.running = true;
    try {
      while ((p.balance || p.notice || p.read) && this.streams.has(userId)) {
        const { balance, notice, read } = p;
        p.balance = p.notice = p.read = false;
        if (balance) await this.sendBalance(userId);
        if (notice) await this.sendNotices(userId);
        if (read) await this.sendUnread(userId);
      }
    } catch (err) {
      // One failed read loses one event; the next signal or a reconnect repairs it.
      this.log.warn({ err, userId }, 'event stream: could not read what changed');
    } finally {
      p.running = false;
      this.pending.delete(userId);
    }
  }

  private async balanceOf(userId: number): Promise<number> {
    return toRoubles(await userBalance(this.ctx.db, userId));
  }

  private async sendBalance(userId: number): Promise<void> {
    const balance = await this.balanceOf(userId);
    for (const s of this.streams.get(userId) ?? []) this.write(s, event('balance', { balance }));
  }

  private async sendNotices(userId: number): Promise<void> {
    const set = this.streams.get(userId);
    if (!set?.size) return;
    const after = Math.min(...[...set].map((s) => s.lastNoticeId));
    const notices = await noticesAfter(this.ctx.db, userId, after);
    if (notices.length === 0) return;
    const unread = await countUnread(this.ctx.db, userId);
    for (const s of set) {
      let out = '';
      for (const notice of notices) if (notice.id > s.lastNoticeId) out += event('notification', { notice, unread });
      s.lastNoticeId = Math.max(s.lastNoticeId, notices.at(-1)!.id);
      if (out) this.write(s, out);
    }
  }

  private async sendUnread(userId: number): Promise<void> {
    const unread = await countUnread(this.ctx.db, userId);
    for (const s of this.streams.get(userId) ?? []) this.write(s, event('read', { unread }));
  }

  private write(s: Stream, text: string): void {
    const res = s.reply.raw;
    if (res.destroyed || res.writableEnded) return this.drop(s);
    if (res.writableLength > MAX_BUFFERED) {
      res.destroy();
      return this.drop(s);
    }
    res.write(text);
  }

  private drop(s: Stream): void {
    const set = this.streams.get(s.userId);
    if (!set?.delete(s)) return;
    if (set.size === 0) this.streams.delete(s.userId);
    if (!s.reply.raw.writableEnded) s.reply.raw.end();
    if (this.streams.size === 0) this.stopTimer();
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A heartbeat on every stream; a stream whose session ended (logout, expiry, ban, password change) is closed. */
  async beat(now = Date.now()): Promise<void> {
    for (const set of [...this.streams.values()])
      for (const s of [...set]) {
        const session = s.expiresAt > now ? await cachedSession(this.ctx, s.token).catch(() => undefined) : undefined;
        if (!session || session.user.id !== s.userId) this.drop(s);
        else this.write(s, ': ping\n\n');
      }
  }
}

/** Each app's hub, for tests and the ops page (a test builds several apps in one process). */
export const eventHubs = new WeakMap<AppContext, EventHub>();

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
