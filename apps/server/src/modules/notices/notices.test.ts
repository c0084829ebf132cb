import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningSite } from '../../test/game-auth.ts';
import { asUser, dbKinds, errorOf, loginAs, seedUser, startInstance, type TestApp } from '../../test/test-app.ts';
import { eventHubs, STREAMS_PER_USER } from './notices.events.ts';
import { notify, rubles } from './notices.service.ts';

const PASSWORD = 'kubik-pass-42';
/** Generous: the machine running the tests may be loaded; the stream normally answers in milliseconds. */
const WAIT_MS = 10_000;

interface SseEvent {
  event: string;
  data: unknown;
  at: number;
}

/** A minimal EventSource over fetch: collects the events of one GET /api/user/events. */
class EventStream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  closed = false;
  private readonly abort = new AbortController();
  private waiters: (() => void)[] = [];

  static async open(base: string, token: string): Promise<EventStream> {
    const s = new EventStream();
    const res = await fetch(`${base}/api/user/events`, { headers: { authorization: `Bearer ${token}` }, signal: s.abort.signal });
    s.status = res.status;
    if (res.status !== 200) {
      s.closed = true;
      await res.body?.cancel();
      return s;
    }
    void s.read(res.body!);
    return s;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          let name = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) this.comments.push(line);
            else if (line.startsWith('event: ')) name = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (data) this.events.push({ event: name, data: JSON.parse(data), at: Date.now() });
          this.wake();
        }
      }
    } catch {
      /* aborted */
    }
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The first event after index `from` that matches, waiting up to WAIT_MS. */
  async next(
    name: string,
    from = 0,
    match: (data: { balance?: number; notice?: { title: string } }) => boolean = () => true,
  ): Promise<SseEvent> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = this.events.slice(from).find((e) => e.event === name && match(e.data as never));
      if (found) return found;
      if (this.closed) throw new Error(`stream closed before ${name}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${name} event within ${WAIT_MS} ms: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async until(done: () => boolean, what = 'the condition'): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (!done()) throw new Error(`${what} did not happen within ${WAIT_MS} ms`);
  }

  untilClosed(): Promise<void> {
    return this.until(() => this.closed, 'closing the stream');
  }

  close(): void {
    this.abort.abort();
  }
}

describe.each(dbKinds)('notices on %s', (kind) => {
  let t: TestApp & { base: string };
  let admin: string;
  let aliceToken: string;
  let alice: number;
  let bob: number;
  const streams: EventStream[] = [];
  const open = async (token: string, base = t.base) => {
    const s = await EventStream.open(base, token);
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await listeningSite(kind, { rateLimits: { enabled: false } });
    await seedUser(t, 'Admin', { admin: true, password: PASSWORD });
    alice = await seedUser(t, 'Alice', { password: PASSWORD });
    bob = await seedUser(t, 'Bob', { password: PASSWORD });
    admin = await loginAs(t, 'Admin', PASSWORD);
    aliceToken = await loginAs(t, 'Alice', PASSWORD);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });

  const list = (token: string, query = '') => t.app.inject(asUser(token, { method: 'GET', url: `/api/user/notifications${query}` }));
  const read = (token: string, payload: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/user/notifications/read', payload: payload as object }));
  const rows = (userId: number) => t.handle.db.selectFrom('notices').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  it('notify() writes in the caller’s transaction and a rollback takes it back', async () => {
    await t.handle.db
      .transaction()
      .execute((trx) => notify(trx, bob, { kind: 'message', title: 'Привет', body: 'Текст', link: '/profile', data: { a: 1 } }));
    await expect(
      t.handle.db.transaction().execute(async (trx) => {
        await notify(trx, bob, { kind: 'message', title: 'Не будет' });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const mine = await rows(bob);
    expect(mine.map((r) => r.title)).toEqual(['Привет']);
    expect(mine[0]).toMatchObject({ kind: 'message', body: 'Текст', link: '/profile', data_json: '{"a":1}', read_at: null });
    expect(rubles(125_000)).toBe('1\u00a0250\u00a0₽');
    expect(rubles(-3550)).toBe('35,50\u00a0₽');
  });

  it('lists a player’s own notices newest first with the unread count, and marks them read', async () => {
    const bobToken = await loginAs(t, 'Bob', PASSWORD);
    await t.handle.db.transaction().execute(async (trx) => {
      for (let i = 1; i <= 22; i++) await notify(trx, alice, { kind: 'message', title: `№${i}` });
    });
    const first = await list(aliceToken);
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1).toMatchObject({ page: 1, pages: 2, total: 22, unread: 22 });
    expect(page1.items).toHaveLength(20);
    expect(page1.items[0]).toMatchObject({ title: '№22', kind: 'message', read_at: null, data: null });
    expect((await list(aliceToken, '?page=2')).json().items.map((n: { title: string }) => n.title)).toEqual(['№2', '№1']);

    // Someone else's ids change nothing; own ids turn read.
    const bobsId = (await rows(bob))[0]!.id;
    const ids = page1.items.slice(0, 2).map((n: { id: number }) => n.id);
    const r = await read(aliceToken, { ids: [...ids, bobsId] });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ unread: 20 });
    expect((await list(bobToken)).json().unread).toBe(1);
    expect((await read(aliceToken, { all: true })).json()).toEqual({ unread: 0 });
    expect((await list(aliceToken)).json().items[0].read_at).toEqual(expect.any(Number));
  });

  it('refuses bad input with a Russian error and a code, changing nothing', async () => {
    for (const body of [{}, { ids: [] }, { ids: ['x'] }, { all: false }, { ids: [1], all: true }, { nope: 1 }, [1]]) {
      const r = await read(aliceToken, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().code).toBe('invalid');
      expect(errorOf(r)).toMatch(/[а-я]/i);
    }
    for (const q of ['?page=0', '?page=x', '?page=1.5']) expect((await list(aliceToken, q)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/notifications' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/events' })).statusCode).toBe(401);
  });

  it('administration messages: to one player (players.view) and to everyone (news)', async () => {
    const one = await t.app.inject(
      asUser(admin, { method: 'POST', url: `/api/admin/users/${bob}/notice`, payload: { title: 'Лично', body: 'Зайдите на сервер' } }),
    );
    expect(one.statusCode).toBe(200);
    expect((await rows(bob)).at(-1)).toMatchObject({ kind: 'message', title: 'Лично', body: 'Зайдите на сервер' });
    const missing = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/admin/users/999999/notice', payload: { title: 'x' } }));
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('notice_user_not_found');
    const empty = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/admin/notices', payload: { title: '  ' } }));
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: 'invalid', field: 'title' });
    const player = await t.app.inject(asUser(aliceToken, { method: 'POST', url: '/api/admin/notices', payload: { title: 'Всем' } }));
    expect(player.statusCode).toBe(403);

    const all = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/admin/notices', payload: { title: 'Обновление сервера' } }));
    expect(all.statusCode).toBe(200);
    expect(all.json().sent).toBe(3);
    for (const id of [alice, bob]) expect((await rows(id)).at(-1)).toMatchObject({ title: 'Обновление сервера', body: null });
    const audit = await t.handle.db.selectFrom('audit_log').select('action').where('entity', '=', 'notice').execute();
    expect(audit.map((a) => a.action)).toEqual(['notice.broadcast']);
  });

  it('a ban and its lift reach the player’s bell', async () => {
    const carol = await seedUser(t, 'Carol', { password: PASSWORD });
    const ban = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: `/api/admin/users/${carol}/ban`,
        payload: { reason: 'Гриферство', note: 'Жалоба модератора: снёс спавн, видео в тикете', until: null },
      }),
    );
    expect(ban.statusCode).toBe(200);
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/users/${carol}/ban` }))).statusCode).toBe(200);
    const token = await loginAs(t, 'Carol', PASSWORD);
    const items = (await list(token)).json().items as { kind: string; title: string; body: string }[];
    expect(items.map((n) => [n.kind, n.title])).toEqual([
      ['unban', 'Блокировка снята'],
      ['ban', 'Аккаунт заблокирован'],
    ]);
    // The player reads the public reason, never the staff's note.
    expect(items[1]!.body).toBe('Аккаунт заблокирован навсегда: Гриферство');
  });

  it('the event stream: balance within a second of an admin change, notices, read counts, a cap per account', async () => {
    await read(aliceToken, { all: true });
    const s = await open(aliceToken);
    expect(s.status).toBe(200);
    const start = await s.next('balance');
    expect(start.data).toEqual({ balance: 0 });

    const from = s.events.length;
    const change = await t.app.inject(
      asUser(admin, { method: 'POST', url: `/api/admin/users/${alice}/balance`, payload: { amount: 150.5, comment: 'Компенсация' } }),
    );
    expect(change.statusCode).toBe(200);
    const committed = Date.now();
    const balance = await s.next('balance', from, (d) => d.balance === 150.5);
    // From the committed change to the event: within a second (typically a few milliseconds;
    // next() itself waits far longer, so a slow machine fails this line, not a timeout).
    expect(balance.at - committed).toBeLessThan(1000);
    const notice = await s.next('notification', from);
    expect(notice.data as object).toMatchObject({ notice: { kind: 'balance', body: 'Компенсация' }, unread: 1 });
    expect((notice.data as { notice: { title: string } }).notice.title).toBe('Начислено 150,50\u00a0₽');

    // Reading on one tab tells the others.
    const before = s.events.length;
    await read(aliceToken, { all: true });
    expect((await s.next('read', before)).data).toEqual({ unread: 0 });

    // A broadcast reaches every open stream.
    const before2 = s.events.length;
    await t.app.inject(asUser(admin, { method: 'POST', url: '/api/admin/notices', payload: { title: 'Вайп в пятницу' } }));
    expect((await s.next('notification', before2)).data).toMatchObject({ notice: { title: 'Вайп в пятницу' }, unread: 1 });

    // A rolled-back notice is never sent; the next one is.
    const before3 = s.events.length;
    await t.handle.db
      .transaction()
      .execute(async (trx) => {
        await notify(trx, alice, { kind: 'message', title: 'Откат' });
        throw new Error('rollback');
      })
      .catch(() => {});
    await t.handle.db.transaction().execute((trx) => notify(trx, alice, { kind: 'message', title: 'После отката' }));
    await s.next('notification', before3, (d) => d.notice?.title === 'После отката');
    expect(s.events.slice(before3).some((e) => (e.data as { notice?: { title: string } }).notice?.title === 'Откат')).toBe(false);

    // The cap: STREAMS_PER_USER per account on one instance.
    const more = [];
    for (let i = 1; i < STREAMS_PER_USER; i++) more.push(await open(aliceToken));
    expect(more.every((m) => m.status === 200)).toBe(true);
    const refused = await fetch(`${t.base}/api/user/events`, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('too_many_streams');
    for (const m of more) m.close();
    s.close();
  });

  it('closes a stream when its session ends (checked with each heartbeat)', async () => {
    const token = await loginAs(t, 'Bob', PASSWORD);
    const s = await open(token);
    await s.next('balance');
    const hub = eventHubs.get(t.app.ctx)!;
    await hub.beat();
    await s.until(() => s.comments.includes(': ping'));
    expect(s.closed).toBe(false);
    expect((await t.app.inject(asUser(token, { method: 'POST', url: '/api/user/logout' }))).statusCode).toBeLessThan(300);
    await hub.beat();
    await s.untilClosed();
  });

  it('a stream’s session looked up first leaves the owner’s rights in the cache: the next /me lists every permission', async () => {
    const s = await open(admin);
    await s.next('balance');
    // The heartbeat is the only one to look the session up now; /me then reads what it cached.
    t.app.ctx.userCache.clear();
    await eventHubs.get(t.app.ctx)!.beat();
    const me = await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/me' }));
    expect(me.statusCode).toBe(200);
    expect((me.json() as { permissions: string[] }).permissions).toContain('settings');
    // The same through the stream's own lookup when it opens.
    s.close();
    t.app.ctx.userCache.clear();
    await (await open(admin)).next('balance');
    expect(
      ((await t.app.inject(asUser(admin, { method: 'GET', url: '/api/user/me' }))).json() as { permissions: string[] }).permissions,
    ).toContain('settings');
  });

  it.runIf(kind === 'pg')('reaches a stream on another instance of the same database', async () => {
    const url = (t.app.ctx.config as { databaseUrl?: string }).databaseUrl!;
    const other = await startInstance(url);
    // Port 0: the system picks a free one as it listens (a port chosen beforehand may be taken by then).
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const address = other.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const s = await open(aliceToken, `http://127.0.0.1:${port}`);
      await s.next('balance');
      const from = s.events.length;
      const r = await t.app.inject(
        asUser(admin, { method: 'POST', url: `/api/admin/users/${alice}/notice`, payload: { title: 'С другого сервера' } }),
      );
      expect(r.statusCode).toBe(200);
      expect((await s.next('notification', from)).data).toMatchObject({ notice: { title: 'С другого сервера' } });
      await t.app.inject(
        asUser(admin, { method: 'POST', url: `/api/admin/users/${alice}/balance`, payload: { amount: -0.5, comment: 'Тест' } }),
      );
      await s.next('balance', from, (d) => d.balance === 150);
      // Shutting down ends the open streams (the browsers reconnect to another instance).
      const closing = other.close();
      await s.untilClosed();
      await closing;
    } finally {
      await other.close().catch(() => {});
    }
  });
});
