import type { TestApp } from '../../test/test-app.ts';
import { offlineUuid } from '../../base/offline-uuid.ts';
import { createSession } from '../users/users.logins.ts';
import { postLedger } from '../ledger/ledger.service.ts';

/** A game server row, written directly (the servers API is another feature's). */
export async function addServer(
  t: TestApp,
  fields: {
    name?: string;
    rcon_port?: number | null;
    rcon_password?: string | null;
    rcon_host?: string | null;
    command_template?: string | null;
  } = {},
): Promise<number> {
  const now = Date.now();
  const row = await t.handle.db
    .insertInto('servers')
    .values({
      name: fields.name ?? 'Выживание',
      description: 'Тестовый сервер',
      image_url: '',
      ip_address: '127.0.0.1',
      port: 25565,
      max_online: 100,
      online: 0,
      status: 'offline',
      version: null,
      motd: null,
      fail_count: 0,
      last_checked_at: null,
      rcon_host: fields.rcon_host ?? null,
      rcon_port: fields.rcon_port ?? null,
      rcon_password: fields.rcon_password ?? null,
      command_template: fields.command_template ?? null,
      sort_order: 0,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Many players quickly: a user row, its balance through the ledger, and a session token — without
 * hashing a password for each (the concurrency test needs dozens).
 */
export async function quickPlayer(t: TestApp, username: string, balanceKopecks: number): Promise<{ id: number; token: string }> {
  const now = Date.now();
  const { id } = await t.handle.db
    .insertInto('users')
    .values({
      username,
      username_lower: username.toLowerCase(),
      email: `${username.toLowerCase()}@example.com`,
      email_lower: `${username.toLowerCase()}@example.com`,
      password_hash: 'not-a-hash',
      is_admin: 0,
      balance: 0,
      email_verified_at: now,
      created_at: now,
      deleted_at: null,
      uuid: offlineUuid(username),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (balanceKopecks > 0)
    await t.handle.db
      .transaction()
      .execute((trx) => postLedger(trx, { userId: id, amount: balanceKopecks, reason: 'adjustment', authorId: null, note: 'test' }));
  const token = await createSession(t.handle.db, id, 3_600_000, {});
  return { id, token };
}

export async function balanceOf(t: TestApp, userId: number): Promise<number> {
  const row = await t.handle.db.selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.balance);
}

export async function countRows(t: TestApp, table: 'shop_orders' | 'deliveries' | 'ledger' | 'shop_items' | 'audit_log'): Promise<number> {
  const row = await t.handle.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Closes a test app. pg's Pool.end() resolves before its connections have finished closing, and
 * the test database is dropped WITH (FORCE) right after: after a test that opened the whole pool,
 * a still-closing connection would be killed and report it as an uncaught error. So the pool is
 * ended first and given a moment (Kysely ignores the second destroy inside t.close()).
 */
export async function closeTestApp(t: TestApp | undefined): Promise<void> {
  if (!t) return;
  await t.handle.close();
  await new Promise((r) => setTimeout(r, 250));
  await t.close();
}
