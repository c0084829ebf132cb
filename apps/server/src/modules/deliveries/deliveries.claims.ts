import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { ClaimQueue, type Claim, type ClaimOwner } from '../../lib/jobs/index.ts';
import type { DeliveriesTable } from './deliveries.tables.ts';

/** A claimed row, with the player's name and UUID as the account has them now. */
export type ClaimedDelivery = Pick<Selectable<DeliveriesTable>, 'id' | 'user_id' | 'step' | 'commands' | 'params' | 'retries'> & {
  username: string | null;
  uuid: string | null;
};

/** A 'sent' row older than this lost its worker mid-command (the longest attempt is a connect and an answer). */
export const leaseMs = (o: { timeoutMs: number }) => 2 * o.timeoutMs + 30_000;

/**
 * The delivery queue on the jobs runner's claim queue (lib/jobs/claim.ts): due rows are pending
 * and their time has come; a worker claims them one server at a time (FOR UPDATE SKIP LOCKED on
 * PostgreSQL, a conditional update on SQLite), with a lease of leaseMs.
 */
export function deliveryQueue(db: Db, lease: number, owner?: ClaimOwner): ClaimQueue<'deliveries'> {
  return new ClaimQueue(
    db,
    {
      table: 'deliveries',
      leaseMs: lease,
      due: (eb, now) => eb.and([eb('state', '=', 'pending'), eb('next_attempt_at', '<=', now)]),
    },
    owner,
  );
}

type Eb = ExpressionBuilder<Database, 'deliveries'>;

/**
 * The rows of a claim that wait to be sent, on its server: only these are renewed and given back.
 * A row marked 'sent' keeps its claim until its outcome is written (or it is judged interrupted).
 */
export const waitingOn = (serverId: number) => (eb: Eb) => eb.and([eb('server_id', '=', serverId), eb('state', '=', 'pending')]);

const unclaimed = (eb: Eb, t: number) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]);

/** Servers with due, unclaimed rows to send over RCON (those of servers that deliver through the AzLink plugin wait for its call). */
export async function dueServers(db: Db, t: number): Promise<number[]> {
  const due = await db
    .selectFrom('deliveries')
    .select('server_id')
    .distinct()
    .where('state', '=', 'pending')
    .where('server_id', 'is not', null)
    .where('next_attempt_at', '<=', t)
    .where((eb) => unclaimed(eb, t))
    .where((eb) =>
      eb(
        'server_id',
        'not in',
        eb.selectFrom('servers').select('id').where('delivery_channel', '=', 'plugin').where('link_token_hash', 'is not', null),
      ),
    )
    .execute();
  return due.map((d) => d.server_id!);
}

/** Claims up to `limit` due rows of one server, oldest first, with {player} and {uuid} as the accounts are now. */
export async function claimFor(
  db: Db,
  queue: ClaimQueue<'deliveries'>,
  serverId: number,
  limit: number,
  now: number,
): Promise<Claim<ClaimedDelivery>> {
  const { token, rows } = await queue.claim(limit, ['user_id', 'player_name', 'step', 'commands', 'params', 'retries'], {
    now,
    where: (eb) => eb('server_id', '=', serverId),
  });
  if (rows.length === 0) return { token, rows: [] };
  const userIds = [...new Set(rows.map((r) => r.user_id).filter((id): id is number => id !== null))];
  // A renamed player gets it under the new name.
  const users =
    userIds.length === 0 ? [] : await db.selectFrom('users').select(['id', 'username', 'uuid']).where('id', 'in', userIds).execute();
  const byId = new Map(users.map((u) => [u.id, u]));
  return {
    token,
    rows: rows.map((r) => {
      const u = r.user_id === null ? undefined : byId.get(r.user_id);
      // A guest's purchase names its nickname until an account with it takes the row.
      return { ...r, username: u?.username ?? r.player_name ?? null, uuid: u?.uuid ?? null };
    }),
  };
}

/** Due rows of no server yet, unclaimed: 'only' (the only server with RCON, resolved when sent) or 'all'. */
export function unassigned(db: Db, scope: 'only' | 'all', t: number) {
  return db
    .updateTable('deliveries')
    .where('state', '=', 'pending')
    .where('server_id', 'is', null)
    .where('server_scope', scope === 'all' ? '=' : '!=', 'all')
    .where('next_attempt_at', '<=', t)
    .where((eb) => unclaimed(eb, t));
}

/**
 * Rows without a server yet: 'only' gets the only server with RCON, 'all' is fanned out to every
 * one; with nothing to send to, `wait` makes each group wait (the highest retries of the group + 1).
 */
export async function assignServers(
  db: Db,
  t: number,
  servers: () => Promise<number[]>,
  wait: (scope: 'only' | 'all', retries: number) => Promise<void>,
): Promise<void> {
  const due = await db
    .selectFrom('deliveries')
    .select(['server_scope', (eb) => eb.fn.max('retries').as('retries'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('state', '=', 'pending')
    .where('server_id', 'is', null)
    .where('next_attempt_at', '<=', t)
    .where((eb) => unclaimed(eb, t))
    .groupBy('server_scope')
    .execute();
  if (due.length === 0) return;
  const ids = await servers();
  for (const group of due) {
    const all = group.server_scope === 'all';
    if (!all && ids.length === 1) {
      await unassigned(db, 'only', t).set({ server_id: ids[0]!, updated_at: t }).execute();
    } else if (all && ids.length > 0) {
      await fanOut(db, t, ids);
    } else {
      // Nothing to send to: they all wait together, without a row-by-row update.
      await wait(all ? 'all' : 'only', Number(group.retries ?? 0) + 1);
    }
  }
}

/** A row for "every server with RCON" made when there was none becomes one row per server. */
async function fanOut(db: Db, t: number, servers: number[]): Promise<void> {
  const rows = await db
    .selectFrom('deliveries')
    .selectAll()
    .where('state', '=', 'pending')
    .where('server_id', 'is', null)
    .where('server_scope', '=', 'all')
    .where('next_attempt_at', '<=', t)
    .limit(100)
    .execute();
  for (const row of rows) {
    await db.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('deliveries')
        .set({ server_id: servers[0]!, waiting: null, last_error: null, updated_at: t })
        .where('id', '=', row.id)
        .where('server_id', 'is', null)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1 || servers.length === 1) return;
      const { id: _id, ...copy } = row;
      await trx
        .insertInto('deliveries')
        .values(
          servers.slice(1).map((server_id) => ({ ...copy, server_id, waiting: null, last_error: null, created_at: t, updated_at: t })),
        )
        .execute();
    });
  }
}
