import type { PublicBan, PublicBanKind } from '@kubik/contract';
import type { ExternalBanSource } from './bans.public.ts';
import { epochMs, pluginText, type PluginDb } from './bans.plugin-db.ts';

/**
 * AdvancedBan's tables, as the plugin makes them: `PunishmentHistory` keeps every punishment
 * (id, name, uuid, reason, operator, punishmentType, start, end, calculation; start and end in
 * epoch ms, end -1 for ever; MySQL's `LONG` makes them text there) and `Punishments` the ones in
 * force, with the same columns and ids of its own. The only index is the id, so rows are read by
 * id, newest first. An IP punishment keeps the address in `uuid`: such rows (IP_BAN,
 * TEMP_IP_BAN) and staff notes (NOTE) never leave this file. The plugin keeps no silent flag.
 * It stores in MySQL/MariaDB or in a local HSQLDB file, never in PostgreSQL. Rows are foreign
 * input (bans.plugin-db.ts): texts are cut to the widths it declares, a row whose start is not a
 * time is left out, and an end that is not one shows no end and is not in force.
 */

const TYPES: Record<PublicBanKind, string[]> = {
  ban: ['BAN', 'TEMP_BAN'],
  mute: ['MUTE', 'TEMP_MUTE'],
  kick: ['KICK'],
  warning: ['WARNING', 'TEMP_WARNING'],
};
const COUNT_TTL_MS = 60_000;
/** The widths AdvancedBan declares: name and operator VARCHAR(16), reason VARCHAR(255) (100 in old versions). */
const WIDTH = { name: 16, reason: 255, operator: 16 } as const;

export class AdvancedBanSource implements ExternalBanSource {
  readonly kinds: readonly PublicBanKind[] = ['ban', 'mute', 'kick', 'warning'];
  private readonly counts = new Map<string, { n: number; at: number }>();

  constructor(
    private readonly db: PluginDb,
    private readonly prefix: string,
  ) {}

  private table(which: 'PunishmentHistory' | 'Punishments'): string {
    return this.db.name(`${this.prefix}${which}`);
  }

  private where(kind: PublicBanKind, q: string | undefined): { sql: string; params: unknown[] } {
    const types = TYPES[kind];
    let sql = `${this.db.name('punishmentType')} IN (${types.map(() => '?').join(', ')})`;
    const params: unknown[] = [...types];
    if (q) {
      sql += this.db.kind === 'mysql' ? ' AND name LIKE ?' : " AND lower(name) LIKE lower(?) ESCAPE '\\'";
      params.push(`${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    return { sql, params };
  }

  async count(kind: PublicBanKind, q: string | undefined, cap: number): Promise<number> {
    const key = `${kind}\n${q ?? ''}\n${cap}`;
    const kept = this.counts.get(key);
    if (kept && Date.now() - kept.at < COUNT_TTL_MS) return kept.n;
    const w = this.where(kind, q);
    const rows = await this.db.rows(
      `SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM ${this.table('PunishmentHistory')} WHERE ${w.sql} LIMIT ${Math.floor(cap)}) capped`,
      w.params,
    );
    const n = Number(rows[0]?.n ?? 0);
    if (this.counts.size > 500) this.counts.clear();
    this.counts.set(key, { n, at: Date.now() });
    return n;
  }

  async page(kind: PublicBanKind, q: string | undefined, offset: number, limit: number): Promise<PublicBan[]> {
    if (limit <= 0) return [];
    const w = this.where(kind, q);
    const type = this.db.name('punishmentType');
    const cols = `id, name, uuid, reason, operator, ${type} AS ptype, ${this.db.name('start')} AS s, ${this.db.name('end')} AS e`;
    const rows = await this.db.rows(
      `SELECT ${cols} FROM ${this.table('PunishmentHistory')} WHERE ${w.sql} ORDER BY id DESC LIMIT ${Math.floor(limit)} OFFSET ${Math.floor(offset)}`,
      w.params,
    );
    // In force: the same player's punishment of that type and start is still in Punishments.
    const uuids = [...new Set(rows.map((r) => String(r.uuid)))];
    const inForce = new Set<string>();
    if (uuids.length > 0 && kind !== 'kick') {
      const live = await this.db.rows(
        `SELECT uuid, ${type} AS ptype, ${this.db.name('start')} AS s FROM ${this.table('Punishments')} WHERE uuid IN (${uuids.map(() => '?').join(', ')})`,
        uuids,
      );
      for (const r of live) {
        const start = epochMs(r.s);
        if (start !== null) inForce.add(`${String(r.uuid)}\n${String(r.ptype)}\n${start}`);
      }
    }
    const now = Date.now();
    const out: PublicBan[] = [];
    for (const r of rows) {
      const since = epochMs(r.s);
      if (since === null) continue;
      const end = r.e === null || r.e === undefined ? -1 : epochMs(r.e);
      const lasting = kind === 'ban' || kind === 'mute';
      out.push({
        source: 'advancedban',
        kind,
        username: pluginText(r.name, WIDTH.name) ?? '',
        reason: pluginText(r.reason, WIDTH.reason) ?? '',
        by: pluginText(r.operator, WIDTH.operator),
        since,
        until: lasting && end !== null && end > 0 ? end : null,
        active: end !== null && inForce.has(`${String(r.uuid)}\n${String(r.ptype)}\n${since}`) && (end <= 0 || end > now),
        server: null,
      });
    }
    return out;
  }

  async check(): Promise<{ problems: string[]; notes: string[] }> {
    const problems: string[] = [];
    const notes: string[] = [];
    await this.db.rows('SELECT 1 AS one', [], true);
    for (const t of ['PunishmentHistory', 'Punishments'] as const) {
      try {
        const rows = await this.db.rows(`SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM ${this.table(t)} LIMIT 100001) c`, [], true);
        const n = Number(rows[0]?.n ?? 0);
        notes.push(`${this.prefix}${t}: ${n > 100_000 ? 'больше 100 000' : n} строк`);
      } catch (err) {
        problems.push(`${this.prefix}${t}: ${(err as Error).message}`);
      }
    }
    return { problems, notes };
  }
}
