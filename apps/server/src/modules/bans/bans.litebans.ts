import type { PublicBan, PublicBanKind } from '@kubik/contract';
import type { ExternalBanSource } from './bans.public.ts';
import { epochMs, flag, pluginText, type PluginDb } from './bans.plugin-db.ts';

/**
 * LiteBans' tables, as the plugin makes them: `<prefix>bans`, `mutes`, `kicks` and `warnings`
 * share the columns id, uuid, ip, reason, banned_by_uuid, banned_by_name, removed_by_*, time and
 * until (epoch ms; until ≤ 0 is forever), server_scope ('*': every server), server_origin, silent,
 * ipban, ipban_wildcard and active, with indexes on uuid, ip, banned_by_uuid, time, until and
 * active; `<prefix>history` maps a uuid to the names it logged in with (date, name, uuid, ip;
 * indexed on uuid, name and ip). Rows are read newest first through the index on time; the player's
 * name is the latest one history holds for the uuid. Neither the ip column nor a silent row leaves
 * this file, nor does a row without a player's uuid (an IP-only ban is '#'…).
 *
 * The flags are bit(1) on MySQL and on PostgreSQL alike (LiteBans declares them BIT; litebans-php
 * compares them with B'1' on PostgreSQL), and the times BIGINT, which node-postgres hands over as
 * text. A row is read as foreign input (bans.plugin-db.ts): a flag counts only when plainly on, a
 * row is silent unless its flag is plainly off, texts are cut to the widths LiteBans declares,
 * and a row whose time is not a time is left out.
 */

const TABLE: Record<PublicBanKind, string> = { ban: 'bans', mute: 'mutes', kick: 'kicks', warning: 'warnings' };
/** A count, and the keys where each row of the list starts, are kept this long (then renewed in the background). */
const COUNT_TTL_MS = 60_000;
/** A search by name looks at no more players than this. */
const SEARCH_UUIDS = 200;
const UNKNOWN_NAME = '(имя неизвестно)';
/** The widths LiteBans declares: reason VARCHAR(2048), banned_by_name VARCHAR(128), server_scope VARCHAR(32), history's name VARCHAR(16). */
const WIDTH = { reason: 2048, by: 128, server: 32, name: 16 } as const;

export class LiteBansSource implements ExternalBanSource {
  readonly kinds: readonly PublicBanKind[] = ['ban', 'mute', 'kick', 'warning'];
  private readonly counts = new Map<string, { n: number; at: number }>();
  /**
   * Per kind, the (time, id) of every row the list reaches, newest first: a page then starts at
   * its row's key through the index on time instead of stepping over the rows ahead of it (an
   * OFFSET of 10,000 reads 10,000 rows, each looked up for its silent flag). Renewed in the
   * background once a minute, and at the next request after the first page shows a row newer
   * than the kept ones; until then the later pages start where they did.
   */
  private readonly keys = new Map<PublicBanKind, { keys: [number, number][]; cap: number; at: number; renewing: boolean }>();

  constructor(
    private readonly db: PluginDb,
    private readonly prefix: string,
  ) {}

  private table(kind: PublicBanKind | 'history'): string {
    return this.db.name(`${this.prefix}${kind === 'history' ? 'history' : TABLE[kind]}`);
  }

  /** The public rows: a player's, not silent (a flag that is not plainly off, NULL too, counts as silent). */
  private get shown(): string {
    // bit(1) reads as text '0', BOOLEAN as 'false', a number column as '0'.
    const silentOff = this.db.kind === 'mysql' ? 'silent = 0' : "CAST(silent AS text) IN ('0', 'false')";
    return `${silentOff} AND uuid IS NOT NULL AND uuid NOT LIKE '#%'`;
  }

  /** Uuids that logged in under a name starting with `q` (any case). */
  private async uuidsNamed(q: string): Promise<string[]> {
    const like = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const nameMatch = this.db.kind === 'mysql' ? 'name LIKE ?' : "lower(name) LIKE lower(?) ESCAPE '\\'";
    const rows = await this.db.rows(`SELECT DISTINCT uuid FROM ${this.table('history')} WHERE ${nameMatch} LIMIT ${SEARCH_UUIDS}`, [like]);
    return rows.map((r) => String(r.uuid));
  }

  private async where(q: string | undefined): Promise<{ sql: string; params: unknown[] } | null> {
    if (!q) return { sql: this.shown, params: [] };
    const uuids = await this.uuidsNamed(q);
    if (uuids.length === 0) return null;
    return { sql: `${this.shown} AND uuid IN (${uuids.map(() => '?').join(', ')})`, params: uuids };
  }

  private async loadKeys(kind: PublicBanKind, cap: number): Promise<[number, number][]> {
    const t = this.db.name('time');
    const rows = await this.db.rows(
      `SELECT ${t} AS t, id FROM ${this.table(kind)} WHERE ${this.shown} ORDER BY ${t} DESC, id DESC LIMIT ${Math.floor(cap)}`,
    );
    const keys: [number, number][] = [];
    for (const r of rows) {
      const t = epochMs(r.t);
      const id = Number(r.id);
      // A row without a readable time has no place in the list (page() leaves it out too).
      if (t !== null && Number.isSafeInteger(id)) keys.push([t, id]);
    }
    this.keys.set(kind, { keys, cap, at: Date.now(), renewing: false });
    return keys;
  }

  private async keysOf(kind: PublicBanKind, cap: number): Promise<[number, number][]> {
    const kept = this.keys.get(kind);
    if (!kept || kept.cap !== cap) return this.loadKeys(kind, cap);
    if (Date.now() - kept.at >= COUNT_TTL_MS && !kept.renewing) {
      kept.renewing = true;
      this.loadKeys(kind, cap).catch(() => {
        kept.renewing = false;
      });
    }
    return kept.keys;
  }

  async count(kind: PublicBanKind, q: string | undefined, cap: number): Promise<number> {
    if (!q) return (await this.keysOf(kind, cap)).length;
    const key = `${kind}\n${q ?? ''}\n${cap}`;
    const kept = this.counts.get(key);
    if (kept && Date.now() - kept.at < COUNT_TTL_MS) return kept.n;
    const where = await this.where(q);
    let n = 0;
    if (where) {
      // Counted no further than the list reaches: never a scan of every row of a big table.
      const rows = await this.db.rows(
        `SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM ${this.table(kind)} WHERE ${where.sql} LIMIT ${Math.floor(cap)}) capped`,
        where.params,
      );
      n = Number(rows[0]?.n ?? 0);
    }
    if (this.counts.size > 500) this.counts.clear();
    this.counts.set(key, { n, at: Date.now() });
    return n;
  }

  async page(kind: PublicBanKind, q: string | undefined, offset: number, limit: number): Promise<PublicBan[]> {
    const where = await this.where(q);
    if (!where || limit <= 0) return [];
    const t = this.db.name('time');
    const u = this.db.name('until');
    let from = `OFFSET ${Math.floor(offset)}`;
    if (!q && offset > 0) {
      // The whole list: start at the row's key (see `keys`).
      const start = (this.keys.get(kind)?.keys ?? (await this.keysOf(kind, offset + limit)))[offset];
      if (!start) return [];
      where.sql += ` AND ${t} <= ? AND (${t} < ? OR id <= ?)`;
      where.params.push(start[0], start[0], start[1]);
      from = '';
    }
    const rows = await this.db.rows(
      `SELECT id, uuid, reason, banned_by_name, ${t} AS t, ${u} AS u, server_scope, active FROM ${this.table(kind)}
       WHERE ${where.sql} ORDER BY ${t} DESC, id DESC LIMIT ${Math.floor(limit)} ${from}`,
      where.params,
    );
    if (!q && offset === 0 && rows[0]) {
      // The first page is read live: a punishment newer than the kept keys renews them now, not within the minute.
      const kept = this.keys.get(kind);
      const first = kept?.keys[0];
      if (kept && !kept.renewing && (!first || first[0] !== epochMs(rows[0].t) || first[1] !== Number(rows[0].id))) kept.at = 0;
    }
    const names = await this.namesOf([...new Set(rows.map((r) => String(r.uuid)))]);
    const now = Date.now();
    const out: PublicBan[] = [];
    for (const r of rows) {
      const since = epochMs(r.t);
      if (since === null) continue;
      // An end that is not a time: shown without one, and not in force.
      const until = epochMs(r.u);
      const lasting = kind === 'ban' || kind === 'mute';
      const scope = pluginText(r.server_scope, WIDTH.server);
      out.push({
        source: 'litebans',
        kind,
        username: names.get(String(r.uuid)) ?? UNKNOWN_NAME,
        reason: pluginText(r.reason, WIDTH.reason) ?? '',
        by: pluginText(r.banned_by_name, WIDTH.by),
        since,
        until: lasting && until !== null && until > 0 ? until : null,
        active: kind !== 'kick' && until !== null && flag(r.active) && (until <= 0 || until > now || !lasting),
        server: scope === null || scope === '' || scope === '*' ? null : scope,
      });
    }
    return out;
  }

  /** The latest name of each uuid. */
  private async namesOf(uuids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (uuids.length === 0) return out;
    const rows = await this.db.rows(
      `SELECT uuid, name FROM ${this.table('history')} WHERE uuid IN (${uuids.map(() => '?').join(', ')}) ORDER BY date DESC, id DESC`,
      uuids,
    );
    for (const r of rows) {
      const name = pluginText(r.name, WIDTH.name);
      if (name && !out.has(String(r.uuid))) out.set(String(r.uuid), name);
    }
    return out;
  }

  /** The owner's check: every table is there and readable; how many rows each has (bounded). */
  async check(): Promise<{ problems: string[]; notes: string[] }> {
    const problems: string[] = [];
    const notes: string[] = [];
    await this.db.rows('SELECT 1 AS one', [], true);
    for (const kind of [...this.kinds, 'history' as const]) {
      try {
        const rows = await this.db.rows(`SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM ${this.table(kind)} LIMIT 100001) c`, [], true);
        const n = Number(rows[0]?.n ?? 0);
        notes.push(`${this.prefix}${kind === 'history' ? 'history' : TABLE[kind]}: ${n > 100_000 ? 'больше 100 000' : n} строк`);
      } catch (err) {
        problems.push(`${this.prefix}${kind === 'history' ? 'history' : TABLE[kind]}: ${(err as Error).message}`);
      }
    }
    return { problems, notes };
  }
}
