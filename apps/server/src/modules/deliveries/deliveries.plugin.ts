import { USERNAME_RE, type DeliverySource } from '@kubik/contract';
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { Database } from '../../db/types.ts';
import { offlineUuid } from '../../base/offline-uuid.ts';
import { CommandError, renderCommand, type CommandParams } from '../../lib/rcon/command.ts';
import { ENDED_COLUMNS, OUTCOME_TEXTS, tellPlayersOf, type EndedRow } from './deliveries.outcomes.ts';

/*
 * Deliveries handed to the AzLink plugin. The plugin calls the site every minute with the players
 * online and runs, on the console, whatever commands the answer holds; it never says whether they
 * ran. So a delivery is marked handed over ('done', channel 'plugin') in the same transaction that
 * builds the answer, by a conditional update on its state and claim: two calls at once, two
 * instances or a retried call never get the same command. A lost answer loses it (at most once);
 * the admin sees «Передано плагину» with the time and can resend it.
 */

/** Sources whose commands do not need the player in the game: they run whether or not the player is there. */
export const NO_PLAYER_SOURCES: readonly DeliverySource[] = ['privilege_revoke', 'ban', 'unban'];

/** At most this many commands in one answer; the rest wait for the next call (the plugin runs them on the main thread). */
export const MAX_HANDED_COMMANDS = 100;

export const PLUGIN_TEXTS = {
  handed: 'Передано плагину',
} as const;

/** A player the plugin reported online. */
export interface ReportedPlayer {
  name: string;
  uuid: string;
}

export interface PluginServer {
  id: number;
  /** The server's command template, for deliveries without commands of their own. */
  template: string | null;
}

type Eb = ExpressionBuilder<Database, 'deliveries'>;

const unclaimed = (eb: Eb, t: number) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', t)]);

/**
 * The state as an expression no index serves, beside `id in (…)`: SQLite keeps no statistics and
 * would otherwise walk the index on state (deliveries_state_created_idx) rather than look up the
 * few ids by key.
 */
const stateByKey = sql<string>`${sql.ref('state')} || ''`;

/** A row whose player must be in the game that is not yet marked as waiting for them. */
const UNMARKED = sql<number>`case when d.source not in (${sql.join([...NO_PLAYER_SOURCES])}) and (d.waiting is null or d.waiting <> 'player_offline') then 1 else 0 end`;
const ANYONE = sql<number>`case when d.source in (${sql.join([...NO_PLAYER_SOURCES])}) then 1 else 0 end`;

/** The players of the server's due rows, with what their rows need; the server's whole queue in one read. */
async function dueAccounts(db: Db, serverId: number, now: number) {
  return db
    .selectFrom('deliveries as d')
    .leftJoin('users as u', 'u.id', 'd.user_id')
    .select((eb) => ['d.user_id', 'u.username', 'u.uuid', eb.fn.max(UNMARKED).as('unmarked'), eb.fn.max(ANYONE).as('anyone')])
    .where('d.state', '=', 'pending')
    .where('d.server_id', '=', serverId)
    .where((eb) => eb.or([eb('d.next_attempt_at', '<=', now), eb('d.waiting', 'is not', null)]))
    .groupBy(['d.user_id', 'u.username', 'u.uuid'])
    .execute();
}

/**
 * Which of these accounts are among the reported players: by UUID (the account's profile UUID, or
 * the offline-mode UUID of its name, which an offline server gives it), else by name. Maps user
 * id → the player as the game server knows them. Only the accounts with due rows are matched, so
 * a fetch costs what its queue holds, not what its player list does.
 */
function playersOnline(
  accounts: readonly { user_id: number | null; username: string | null; uuid: string | null }[],
  players: readonly ReportedPlayer[],
): Map<number, ReportedPlayer> {
  const found = new Map<number, ReportedPlayer>();
  if (players.length === 0) return found;
  const byUuid = new Map<string, ReportedPlayer>();
  const byName = new Map<string, ReportedPlayer>();
  for (const p of players) {
    byUuid.set(p.uuid.toLowerCase(), p);
    byName.set(p.name.toLowerCase(), p);
  }
  for (const u of accounts) {
    if (u.user_id === null || u.username === null || u.uuid === null) continue;
    const p = byUuid.get(u.uuid.toLowerCase()) ?? byUuid.get(offlineUuid(u.username)) ?? byName.get(u.username.toLowerCase());
    if (p) found.set(u.user_id, p);
  }
  return found;
}

interface Candidate {
  id: number;
  user_id: number | null;
  source: string;
  step: number;
  commands: string | null;
  params: string;
  username: string | null;
  uuid: string | null;
}

/**
 * The commands for one call of the plugin: due deliveries of the server whose player is among
 * `players` (or that need no player), oldest first, at most MAX_HANDED_COMMANDS commands, keyed
 * by the player's name as AzLink expects. Runs inside the caller's transaction; the deliveries it
 * returns are marked handed over in it, those whose player is away wait for them.
 */
export async function handToPlugin(
  trx: Db,
  server: PluginServer,
  players: readonly ReportedPlayer[],
  now: number,
): Promise<Record<string, string[]>> {
  // Nothing due (the usual minute): one read, no more.
  const accounts = await dueAccounts(trx, server.id, now);
  if (accounts.length === 0) return {};
  const online = playersOnline(accounts, players);
  const ids = [...online.keys()];
  const candidates: Candidate[] =
    ids.length === 0 && !accounts.some((a) => Number(a.anyone) === 1)
      ? []
      : await trx
          .selectFrom('deliveries as d')
          .leftJoin('users as u', 'u.id', 'd.user_id')
          .select(['d.id', 'd.user_id', 'd.source', 'd.step', 'd.commands', 'd.params', 'u.username', 'u.uuid'])
          .where('d.state', '=', 'pending')
          .where('d.server_id', '=', server.id)
          // A row that waits (a backoff from RCON days, or for its player) goes as soon as its player is here; one
          // queued for later (waiting null, not yet due) keeps its time.
          .where((eb) => eb.or([eb('d.next_attempt_at', '<=', now), eb('d.waiting', 'is not', null)]))
          .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<', now)]))
          .where((eb) => eb.or([eb('d.source', 'in', [...NO_PLAYER_SOURCES]), ...(ids.length > 0 ? [eb('d.user_id', 'in', ids)] : [])]))
          .orderBy('d.id')
          .limit(MAX_HANDED_COMMANDS)
          .execute();

  const chosen: { row: Candidate; key: string; commands: string[] }[] = [];
  const failed: { id: number; error: string }[] = [];
  let count = 0;
  for (const row of candidates) {
    const player = row.user_id === null ? undefined : online.get(row.user_id);
    // The name the game server knows (its case), when it is a plain Minecraft name; else the account's.
    const name = player && USERNAME_RE.test(player.name) ? player.name : row.username;
    const uuid = player ? player.uuid.toLowerCase() : row.uuid;
    const templates = row.commands === null ? [server.template] : (JSON.parse(row.commands) as string[]).slice(Number(row.step));
    let commands: string[];
    try {
      commands = templates.map((tpl) => renderCommand(tpl, { player: name, uuid, params: JSON.parse(row.params) as CommandParams }));
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      failed.push({ id: row.id, error: err.message });
      continue;
    }
    if (commands.length === 0) continue;
    if (count + commands.length > MAX_HANDED_COMMANDS) break;
    count += commands.length;
    chosen.push({ row, key: name ?? 'console', commands });
  }

  const answer: Record<string, string[]> = {};
  const ended: EndedRow[] = [];
  if (chosen.length > 0) {
    const last = sql<string>`case ${sql.join(
      chosen.map((c) => sql`when id = ${c.row.id} then ${c.commands.join('\n')}`),
      sql` `,
    )} end`;
    // Only rows still pending and unclaimed: another call (or instance) that took one first keeps it.
    const handed = await trx
      .updateTable('deliveries')
      .set({
        state: 'done',
        channel: 'plugin',
        command: last,
        reply: PLUGIN_TEXTS.handed,
        attempts: sql<number>`attempts + 1`,
        waiting: null,
        last_error: null,
        retries: 0,
        sent_at: now,
        done_at: now,
        updated_at: now,
      })
      .where(
        'id',
        'in',
        chosen.map((c) => c.row.id),
      )
      .where(stateByKey, '=', 'pending')
      .where((eb) => unclaimed(eb, now))
      .returning(ENDED_COLUMNS)
      .execute();
    const got = new Set(handed.map((h) => h.id));
    for (const c of chosen) {
      if (!got.has(c.row.id)) continue;
      (answer[c.key] ??= []).push(...c.commands);
    }
    ended.push(...handed);
  }
  if (failed.length > 0) {
    const why = sql<string>`case ${sql.join(
      failed.map((f) => sql`when id = ${f.id} then ${f.error}`),
      sql` `,
    )} end`;
    ended.push(
      ...(await trx
        .updateTable('deliveries')
        .set({ state: 'failed', channel: 'plugin', waiting: null, last_error: why, updated_at: now })
        .where(
          'id',
          'in',
          failed.map((f) => f.id),
        )
        .where(stateByKey, '=', 'pending')
        .returning(ENDED_COLUMNS)
        .execute()),
    );
  }
  // The players hear of what was given and what failed, from the rows the updates returned.
  await tellPlayersOf(trx, ended, now);

  // The others wait for their player; written once, when they start waiting. Only the players
  // the read above found away with unmarked rows: none (the usual case) is no statement, and a row
  // queued meanwhile is left to the next call rather than marked for a player who may be here.
  const away = accounts.filter((a) => Number(a.unmarked) === 1 && (a.user_id === null || !online.has(a.user_id)));
  if (away.length > 0) {
    const awayIds = away.flatMap((a) => (a.user_id === null ? [] : [a.user_id]));
    const userless = away.some((a) => a.user_id === null);
    await trx
      .updateTable('deliveries')
      .set({ waiting: 'player_offline', last_error: OUTCOME_TEXTS.offline, updated_at: now })
      .where('state', '=', 'pending')
      .where('server_id', '=', server.id)
      .where((eb) => eb.or([eb('next_attempt_at', '<=', now), eb('waiting', 'is not', null)]))
      .where('source', 'not in', [...NO_PLAYER_SOURCES])
      .where((eb) => eb.or([eb('waiting', 'is', null), eb('waiting', '!=', 'player_offline')]))
      .where((eb) =>
        eb.or([...(userless ? [eb('user_id', 'is', null)] : []), ...(awayIds.length > 0 ? [eb('user_id', 'in', awayIds)] : [])]),
      )
      .execute();
  }
  return answer;
}

/** Plugin servers with deliveries the plugin has not looked at yet (the instant ping's candidates). */
export async function serversWithNewPluginRows(db: Db, now: number) {
  return db
    .selectFrom('servers as s')
    .select(['s.id', 's.ip_address', 's.link_token_hash', 's.link_ping_port'])
    .where('s.delivery_channel', '=', 'plugin')
    .where('s.link_token_hash', 'is not', null)
    .where('s.link_ping', '=', 1)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('deliveries as d')
          .select('d.id')
          .whereRef('d.server_id', '=', 's.id')
          .where('d.state', '=', 'pending')
          .where('d.waiting', 'is', null)
          .where('d.next_attempt_at', '<=', now),
      ),
    )
    .execute();
}
