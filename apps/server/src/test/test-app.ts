import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../app.ts';
import { loadConfig, type ConfigOverrides } from '../config.ts';
import { openDatabase, type DbHandle } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { hashPassword } from '../front-door/passwords.ts';
import { profileUuidFor } from '../modules/users/users.repo.ts';
import { SmtpCatcher } from '../../../../testing/smtp-catcher.ts';

export type TestDbKind = 'sqlite' | 'pg';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL names a server where we may create databases. */
export const dbKinds: TestDbKind[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'pg'] : ['sqlite'];

export interface TestApp {
  app: FastifyInstance;
  handle: DbHandle;
  smtp: SmtpCatcher;
  dataDir: string;
  close(): Promise<void>;
}

/** A database of its own on the PostgreSQL server of TEST_DATABASE_URL; drop() removes it. */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `kubik_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function createTestApp(kind: TestDbKind, overrides: ConfigOverrides = {}): Promise<TestApp> {
  const smtp = await new SmtpCatcher().start();
  const pgDb = kind === 'pg' ? await createPgDatabase() : null;
  const site = await bootSite({ databaseUrl: pgDb?.url, smtpUrl: smtp.url, ...overrides });
  return {
    ...site,
    smtp,
    async close() {
      await site.close();
      await smtp.stop();
      await pgDb?.drop();
    },
  };
}

/** One more instance of the site on a PostgreSQL database, as a second server would run it (no SMTP, jobs off). */
export function startInstance(databaseUrl: string, overrides: ConfigOverrides = {}): Promise<Omit<TestApp, 'smtp'>> {
  return bootSite({ databaseUrl, workers: false, ...overrides });
}

/** A migrated database and the app on it, in a data directory of its own that close() removes. */
async function bootSite(overrides: ConfigOverrides): Promise<Omit<TestApp, 'smtp'>> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-test-'));
  const config = loadConfig(
    {},
    {
      dataDir,
      sqlitePath: path.join(dataDir, 'test.sqlite'),
      logLevel: 'silent',
      publicUrl: 'http://kubik.test',
      // Every test site is an instance of its own: several on one database never take each other's claims.
      instanceId: path.basename(dataDir),
      ...overrides,
    },
  );
  const handle = openDatabase(config);
  await migrateToLatest(handle);
  const app = await buildApp(config, { database: handle });
  await app.ready();
  return {
    app,
    handle,
    dataDir,
    async close() {
      await app.close();
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Inserts a confirmed user directly (tests of other features need one without the mail round trip). */
export async function seedUser(
  t: TestApp,
  username: string,
  opts: { admin?: boolean; password?: string; balanceKopecks?: number } = {},
): Promise<number> {
  const now = Date.now();
  const row = await t.handle.db
    .insertInto('users')
    .values({
      username,
      username_lower: username.toLowerCase(),
      email: `${username.toLowerCase()}@example.com`,
      email_lower: `${username.toLowerCase()}@example.com`,
      password_hash: await hashPassword(opts.password ?? 'password123'),
      is_admin: opts.admin ? 1 : 0,
      balance: 0,
      email_verified_at: now,
      created_at: now,
      deleted_at: null,
      uuid: await profileUuidFor(t.handle.db, username),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (opts.balanceKopecks) {
    await t.handle.db.transaction().execute(async (trx) => {
      const { postLedger } = await import('../modules/ledger/ledger.service.ts');
      await postLedger(trx, { userId: row.id, amount: opts.balanceKopecks!, reason: 'adjustment', authorId: null, note: 'test' });
    });
  }
  return row.id;
}

/** Logs in through the API and returns the session token for `authorization: Bearer`. */
export async function loginAs(t: TestApp, username: string, password = 'password123'): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password, bearer: true } });
  if (res.statusCode !== 200) throw new Error(`login ${username}: ${res.statusCode} ${res.body}`);
  return res.json<{ token: string }>().token;
}

export function asUser(token: string | null, opts: InjectOptions): InjectOptions {
  return token ? { ...opts, headers: { ...opts.headers, authorization: `Bearer ${token}` } } : opts;
}

/** Sends the queued letters now (apps made with workers off do not send them in the background). */
export async function sendQueuedMail(t: TestApp): Promise<number> {
  const { drainOutbox } = await import('../modules/mail/mail.outbox.ts');
  const { siteName } = await import('../modules/site/site.settings.ts');
  return drainOutbox(t.handle.db, t.app.ctx.mailer, t.app.log, undefined, undefined, () => siteName(t.app.ctx));
}

/**
 * A POST whose JSON body breaks off: 400 if the route reads it, so a 429 shows that a client over
 * its limit was refused before the body was read.
 */
export function postBrokenJson(t: Pick<TestApp, 'app'>, url: string, remoteAddress: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"broken":', remoteAddress });
}

export function errorOf(res: LightMyRequestResponse): string {
  return res.json<{ error: string }>().error;
}
