import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from '../../test/test-app.ts';
import { enqueueMail } from '../mail/mail.outbox.ts';

/** Prometheus's own checker (Debian's prometheus package; .ci/run installs it and sets REQUIRE_PROMTOOL). */
const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';
const hasPromtool = fs.existsSync(PROMTOOL) || !!process.env.REQUIRE_PROMTOOL;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value of one sample in Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const escaped = `${name}${labels}`.replace(/[{}()[\].*+?^$|\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

describe.each(dbKinds)('health, readiness and metrics on %s', (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('/healthz answers while the process runs; /readyz says ready with each check', async () => {
    t = await createTestApp(kind, { workers: false });
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', migrations: 'ok', notifications: 'ok' } });
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  it('/readyz: 503 with the reason when a migration is not applied', async () => {
    t = await createTestApp(kind, { workers: false });
    const last = await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(t.handle.db);
    await sql`delete from kysely_migration where name = ${last.rows[0]!.name}`.execute(t.handle.db);
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      status: 'unavailable',
      code: 'not_ready',
      checks: { database: 'ok', migrations: `не применены: ${last.rows[0]!.name}` },
    });
    expect(res.json().error).toBe(`Миграции не применены: ${last.rows[0]!.name}`);
  });

  it('/readyz: 503 with the reason when the database cannot be reached', async () => {
    t = await createTestApp(kind, { workers: false });
    const handle = t.handle;
    await handle.close();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.database).toMatch(/^недоступна: /);
    expect(res.json().error).toMatch(/^База данных недоступна: /);
    // The process itself still answers.
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // close() closes the database again: give it one that is open.
    t.handle = { ...handle, close: async () => {} };
  });

  it.runIf(kind === 'pg')('/readyz: 503 when the PostgreSQL notification channel is down', async () => {
    t = await createTestApp(kind, { workers: false });
    await t.app.ctx.notifications.stop();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks).toMatchObject({ database: 'ok', migrations: 'ok' });
    expect(res.json().error).toMatch(/^Канал уведомлений: нет связи с PostgreSQL/);
  });

  it('/metrics: requests by route and status with latency, queues by state, process metrics', async () => {
    t = await createTestApp(kind, { workers: false });
    const db = t.handle.db;
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/api/site' });
    // A public read answered from memory before Fastify sees it (the fast path) counts too.
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    for (let i = 0; i < 4; i++) expect((await fetch(`${base}/api/tidings/news`)).status).toBe(200);
    await t.app.inject({ method: 'GET', url: '/api/no-such-thing' });
    await t.app.inject({ method: 'GET', url: '/api/user/me' });
    const now = Date.now();
    for (const state of ['queued', 'queued', 'done'])
      await db
        .insertInto('deliveries')
        .values({
          source: 'shop',
          label: 'Меч',
          state,
          params: '{}',
          server_scope: 'server',
          step: 0,
          attempts: 0,
          retries: 0,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
    await enqueueMail(db, { to: 'a@example.com', subject: 'Письмо', text: 'текст', html: '<p>текст</p>' });
    const paymentsExisted =
      (
        await sql<{
          n: number;
        }>`select count(*) as n from ${sql.raw(kind === 'pg' ? "pg_tables where tablename = 'payments'" : "sqlite_master where type = 'table' and name = 'payments'")}`.execute(
          db,
        )
      ).rows[0]!.n > 0;
    if (!paymentsExisted) {
      await sql`create table payments (id integer primary key, status varchar(16) not null)`.execute(db);
      await sql`insert into payments (id, status) values (1, 'paid'), (2, 'paid'), (3, 'pending')`.execute(db);
    }
    const payments = (await sql<{ status: string; n: number }>`select status, count(*) as n from payments group by status`.execute(db))
      .rows;

    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'http_request_duration_seconds_count', '{method="GET",route="/api/site",status="200"}')).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_bucket', '{le="10",method="GET",route="/api/site",status="200"}')).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_count', '{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', '{method="GET",route="/api/tidings/news",status="200"}')).toBe(4);
    expect(sample(text, 'http_request_duration_seconds_count', '{method="GET",route="/api/user/me",status="401"}')).toBe(1);
    expect(sample(text, 'kubik_deliveries', '{state="queued"}')).toBe(2);
    expect(sample(text, 'kubik_deliveries', '{state="done"}')).toBe(1);
    expect(sample(text, 'kubik_mail_queue', '{state="queued"}')).toBe(1);
    expect(sample(text, 'kubik_mail_queue', '{state="failed"}')).toBe(0);
    for (const p of payments) expect(sample(text, 'kubik_payments', `{status="${p.status}"}`)).toBe(Number(p.n));
    expect(payments.length).toBeGreaterThan(paymentsExisted ? -1 : 1);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it.runIf(hasPromtool)('/metrics passes `promtool check metrics` with no problems', async () => {
    t = await createTestApp(kind, { workers: false });
    await t.app.inject({ method: 'GET', url: '/api/site' });
    await t.app.inject({ method: 'GET', url: '/api/no-such-thing' });
    t.app.ctx.metrics.job('deliveries', 12, false);
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('kubik_db_connection_errors_total{client="pool"} 0');
    expect(res.body).toContain('nodejs_active_handles{');
    expect(res.body).not.toContain('nodejs_active_handles_total');
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: res.body, encoding: 'utf8' });
    expect(check.error, `${PROMTOOL}: install Debian's prometheus package`).toBeUndefined();
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });
  it.skipIf(hasPromtool)(
    'promtool check metrics: SKIPPED — promtool is not installed here (apt-get install prometheus; CI installs it)',
    () => {},
  );

  it('/metrics: each background pass by job, the monitor sweep among them', async () => {
    t = await createTestApp(kind, { workers: true });
    const deadline = Date.now() + 10_000;
    while ((t.app.ctx.jobs.stats()['servers.monitor']?.runs ?? 0) < 1 || (t.app.ctx.jobs.stats()['deliveries']?.runs ?? 0) < 1) {
      if (Date.now() > deadline) throw new Error('the jobs did not run');
      await sleep(20);
    }
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(text, 'kubik_job_duration_seconds_count', '{job="servers.monitor"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kubik_job_duration_seconds_count', '{job="deliveries"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'kubik_job_failures_total', '{job="servers.monitor"}')).toBe(0);
    expect(sample(text, 'kubik_job_last_duration_seconds', '{job="servers.monitor"}')).toBeGreaterThanOrEqual(0);
  });

  it('/metrics answers loopback callers only, and not through a proxy on the same machine', async () => {
    t = await createTestApp(kind, { workers: false });
    const remote = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.7' });
    expect(remote.statusCode).toBe(403);
    expect(remote.json().error).toContain('METRICS_TOKEN');
    const proxied = await t.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(proxied.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' })).statusCode).toBe(200);
  });

  it('/metrics with METRICS_TOKEN: any address with the bearer token, nobody without it', async () => {
    t = await createTestApp(kind, { workers: false, metricsToken: 'a-long-metrics-token-1234' });
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toContain('Bearer');
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/metrics',
          remoteAddress: '203.0.113.7',
          headers: { authorization: 'Bearer wrong-token-wrong-token' },
        })
      ).statusCode,
    ).toBe(401);
    const ok = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '203.0.113.7',
      headers: { authorization: 'Bearer a-long-metrics-token-1234' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('http_request_duration_seconds');
  });
});
