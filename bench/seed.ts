import type { DbHandle } from '../apps/server/src/db/index.ts';
import { hashPassword } from '../apps/server/src/front-door/passwords.ts';
import { offlineUuid } from '../apps/server/src/base/offline-uuid.ts';
import { postLedger } from '../apps/server/src/modules/ledger/ledger.service.ts';

export interface SeedResult {
  counts: Record<string, number>;
  player: { username: string; password: string };
  admin: { username: string; password: string };
  buyers: { username: string; password: string }[];
  /** The item the purchase load buys; stock and balances are large enough for the whole run. */
  benchItemId: number;
}

const USERS = 5000;
const NEWS = 200;
const TIERS = 20;
const ITEMS = 100;
const SERVERS = 50;
export const BUYERS = 100;

async function inChunks<T>(rows: T[], size: number, insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
}

/** Generated data for the benchmark, written straight into the database. */
export async function seed(handle: DbHandle): Promise<SeedResult> {
  const { db } = handle;
  const now = Date.now();
  const password = 'bench-password-1';
  // One hash for everyone: hashing 5,000 passwords would only measure argon2.
  const hash = await hashPassword(password);
  const users = Array.from({ length: USERS }, (_, i) => {
    const username = i === 0 ? 'BenchPlayer' : i <= BUYERS ? `Buyer_${i}` : `Player_${i}`;
    return {
      username,
      username_lower: username.toLowerCase(),
      email: `${username.toLowerCase()}@bench.test`,
      email_lower: `${username.toLowerCase()}@bench.test`,
      password_hash: hash,
      is_admin: i === USERS - 1 ? 1 : 0,
      balance: 0,
      email_verified_at: now,
      created_at: now,
      deleted_at: null,
      uuid: offlineUuid(username),
    };
  });
  await inChunks(users, 500, (chunk) => db.insertInto('users').values(chunk).execute());
  const buyerRows = await db.selectFrom('users').select(['id', 'username']).where('username', 'like', 'Buyer_%').execute();
  await db.transaction().execute(async (trx) => {
    for (const b of buyerRows)
      await postLedger(trx, { userId: b.id, amount: 100_000_000, reason: 'adjustment', authorId: null, note: 'bench' });
  });

  const text = 'Обновление сервера: новые биомы, исправления и ивент на выходных. '.repeat(6);
  await inChunks(
    Array.from({ length: NEWS }, (_, i) => ({
      title: `Новость №${i + 1}`,
      content: text,
      image_url: i % 3 === 0 ? '/favicon.svg' : null,
      author_id: null,
      created_at: now - i * 60_000,
      updated_at: now - i * 60_000,
    })),
    100,
    (chunk) => db.insertInto('news').values(chunk).execute(),
  );

  const kits = JSON.stringify(
    Array.from({ length: 4 }, (_, k) => ({
      name: `Кит ${k + 1}`,
      description: 'Набор ресурсов и брони',
      command: `/kit vip${k + 1}`,
      period: 7,
      kitImg: '',
    })),
  );
  const features = JSON.stringify(
    Array.from({ length: 6 }, (_, f) => ({
      title: `Привилегия ${f + 1}`,
      value: 'x2',
      description: 'Описание привилегии',
      check: f % 2 === 0,
    })),
  );
  await db
    .insertInto('donate_tiers')
    .values(
      Array.from({ length: TIERS }, (_, i) => ({
        title: `Тир ${i + 1}`,
        content: 'Доступ к привилегиям',
        amount_minor: (i + 1) * 9900,
        currency: 'RUB',
        image_url: null,
        is_best: i === 2 ? 1 : 0,
        position: i,
        kits_json: kits,
        features_json: features,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();

  const serverIds: number[] = [];
  for (let i = 0; i < SERVERS; i++) {
    const row = await db
      .insertInto('servers')
      .values({
        name: `Сервер ${i + 1}`,
        description: 'Выживание с друзьями',
        image_url: '',
        ip_address: '127.0.0.1',
        port: 1,
        max_online: 100,
        online: i,
        status: i % 5 === 0 ? 'offline' : 'online',
        version: '1.21',
        motd: 'Kubik',
        fail_count: 0,
        last_checked_at: now,
        rcon_host: null,
        rcon_port: null,
        rcon_password: null,
        command_template: null,
        sort_order: i,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    serverIds.push(row.id);
  }

  await inChunks(
    Array.from({ length: ITEMS }, (_, i) => ({
      name: `Предмет ${i + 1}`,
      description: 'Полезный предмет',
      icon: '/favicon.svg',
      category: 'Предметы',
      item_id_minecraft: 'diamond',
      status: 'Продаётся',
      price: 1000 + i,
      count: i === 0 ? 10_000_000 : 500,
      server_id: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    })),
    50,
    (chunk) => db.insertInto('shop_items').values(chunk).execute(),
  );
  const benchItem = await db.selectFrom('shop_items').select('id').orderBy('id').executeTakeFirstOrThrow();

  return {
    counts: { users: USERS, news: NEWS, tiers: TIERS, items: ITEMS, servers: SERVERS },
    player: { username: 'BenchPlayer', password },
    admin: { username: `Player_${USERS - 1}`, password },
    buyers: buyerRows.map((b) => ({ username: b.username, password })),
    benchItemId: benchItem.id,
  };
}
