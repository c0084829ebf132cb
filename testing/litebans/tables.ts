/**
 * LiteBans' and AdvancedBan's tables as the plugins make them in MySQL/MariaDB (and LiteBans'
 * in PostgreSQL), for tests and the benchmark to fill as the plugins would. Nothing here comes
 * from the site.
 *
 * LiteBans (closed source) is imitated from what it makes on a live server (SHOW CREATE TABLE of
 * LiteBans 2.x: one table per kind of punishment with the same columns — `warnings` adds
 * `warned` — bit(1) flags, times in epoch ms in BIGINT with `until` ≤ 0 for ever, and its
 * secondary indexes; `history` with a name per uuid and login) and from its open-source web
 * interface, litebans-php, which reads the same tables on MySQL and PostgreSQL: on PostgreSQL it
 * compares the flags with the bit strings B'1' and B'0' (a BOOLEAN column would refuse that), and
 * its test schema declares the flags BIT, the times BIGINT and the same VARCHAR widths. So in
 * PostgreSQL the flags are BIT(1) too, which node-postgres reads as the text '1' or '0', and
 * BIGINT times come as text. `liteBansPostgresTables(prefix, flags)` can also make them BOOLEAN
 * or SMALLINT, for a site that must cope with a table made or altered by hand.
 *
 * AdvancedBan is imitated from its source (DevLeoko/AdvancedBan, SQLQuery.java): on MySQL
 * `Punishments` and `PunishmentHistory` with only the id indexed, reason VARCHAR(255), and
 * `start`/`end` declared `LONG`, which MySQL makes MEDIUMTEXT, so epoch ms arrive as text; its
 * only other store is a local HSQLDB file (start/end BIGINT) the site cannot reach: no PostgreSQL.
 */

const KINDS = ['bans', 'mutes', 'kicks', 'warnings'] as const;
export type LiteBansKind = (typeof KINDS)[number];

function mysqlPunishments(prefix: string, kind: LiteBansKind): string[] {
  const t = `${prefix}${kind}`;
  const warned = kind === 'warnings' ? "  `warned` bit(1) NOT NULL DEFAULT b'0',\n" : '';
  return [
    `CREATE TABLE IF NOT EXISTS \`${t}\` (
  \`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`uuid\` varchar(36) DEFAULT NULL,
  \`ip\` varchar(45) DEFAULT NULL,
  \`reason\` varchar(2048) DEFAULT NULL,
  \`banned_by_uuid\` varchar(36) NOT NULL,
  \`banned_by_name\` varchar(128) DEFAULT NULL,
  \`removed_by_uuid\` varchar(36) DEFAULT NULL,
  \`removed_by_name\` varchar(128) DEFAULT NULL,
  \`removed_by_reason\` varchar(2048) DEFAULT NULL,
  \`removed_by_date\` timestamp NULL DEFAULT NULL,
  \`time\` bigint(20) NOT NULL,
  \`until\` bigint(20) NOT NULL,
  \`template\` tinyint(3) unsigned NOT NULL DEFAULT 255,
  \`server_scope\` varchar(32) DEFAULT NULL,
  \`server_origin\` varchar(32) DEFAULT NULL,
  \`silent\` bit(1) NOT NULL,
  \`ipban\` bit(1) NOT NULL,
  \`ipban_wildcard\` bit(1) NOT NULL DEFAULT b'0',
  \`active\` bit(1) NOT NULL,
${warned}  PRIMARY KEY (\`id\`),
  KEY \`idx_${t}_template\` (\`template\`),
  KEY \`idx_${t}_ipban_wildcard\` (\`ipban_wildcard\`),
  KEY \`idx_${t}_uuid\` (\`uuid\`),
  KEY \`idx_${t}_ip\` (\`ip\`),
  KEY \`idx_${t}_banned_by_uuid\` (\`banned_by_uuid\`),
  KEY \`idx_${t}_time\` (\`time\`),
  KEY \`idx_${t}_until\` (\`until\`),
  KEY \`idx_${t}_ipban\` (\`ipban\`),
  KEY \`idx_${t}_active\` (\`active\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  ];
}

/** LiteBans' tables in MySQL/MariaDB (`prefix` is LiteBans' `table_prefix`, 'litebans_' by default). */
export function liteBansMysqlTables(prefix = 'litebans_'): string[] {
  return [
    ...KINDS.flatMap((k) => mysqlPunishments(prefix, k)),
    `CREATE TABLE IF NOT EXISTS \`${prefix}history\` (
  \`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`date\` timestamp NOT NULL DEFAULT current_timestamp(),
  \`name\` varchar(16) DEFAULT NULL,
  \`uuid\` varchar(36) DEFAULT NULL,
  \`ip\` varchar(45) DEFAULT NULL,
  PRIMARY KEY (\`id\`),
  KEY \`idx_${prefix}history_uuid\` (\`uuid\`),
  KEY \`idx_${prefix}history_name\` (\`name\`),
  KEY \`idx_${prefix}history_ip\` (\`ip\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  ];
}

/** How a PostgreSQL table keeps LiteBans' flags: BIT(1) as LiteBans makes it, or as a hand-made table might. */
export type LiteBansPgFlags = 'bit' | 'boolean' | 'smallint';
const PG_FLAG: Record<LiteBansPgFlags, { type: string; off: string }> = {
  bit: { type: 'BIT(1)', off: "B'0'" },
  boolean: { type: 'BOOLEAN', off: 'FALSE' },
  smallint: { type: 'SMALLINT', off: '0' },
};

/** LiteBans' tables in PostgreSQL: the same columns, names folded to lower case, flags BIT(1) unless told. */
export function liteBansPostgresTables(prefix = 'litebans_', flags: LiteBansPgFlags = 'bit'): string[] {
  const out: string[] = [];
  const { type: F, off } = PG_FLAG[flags];
  for (const k of KINDS) {
    const t = `${prefix}${k}`;
    out.push(`CREATE TABLE IF NOT EXISTS ${t} (
  id BIGSERIAL PRIMARY KEY,
  uuid VARCHAR(36),
  ip VARCHAR(45),
  reason VARCHAR(2048),
  banned_by_uuid VARCHAR(36) NOT NULL,
  banned_by_name VARCHAR(128),
  removed_by_uuid VARCHAR(36),
  removed_by_name VARCHAR(128),
  removed_by_reason VARCHAR(2048),
  removed_by_date TIMESTAMP,
  time BIGINT NOT NULL,
  until BIGINT NOT NULL,
  template SMALLINT NOT NULL DEFAULT 255,
  server_scope VARCHAR(32),
  server_origin VARCHAR(32),
  silent ${F} NOT NULL,
  ipban ${F} NOT NULL,
  ipban_wildcard ${F} NOT NULL DEFAULT ${off},
  active ${F} NOT NULL${k === 'warnings' ? `,\n  warned ${F} NOT NULL DEFAULT ${off}` : ''}
)`);
    for (const c of ['uuid', 'ip', 'banned_by_uuid', 'time', 'until', 'active'])
      out.push(`CREATE INDEX IF NOT EXISTS idx_${t}_${c} ON ${t} (${c})`);
  }
  out.push(`CREATE TABLE IF NOT EXISTS ${prefix}history (
  id BIGSERIAL PRIMARY KEY,
  date TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  name VARCHAR(16),
  uuid VARCHAR(36),
  ip VARCHAR(45)
)`);
  for (const c of ['uuid', 'name', 'ip']) out.push(`CREATE INDEX IF NOT EXISTS idx_${prefix}history_${c} ON ${prefix}history (${c})`);
  return out;
}

/** One punishment as LiteBans writes it (the test picks the values). */
export interface LiteBansRow {
  uuid: string;
  ip?: string;
  reason: string;
  banned_by_name: string;
  time: number;
  until: number;
  server_scope?: string;
  silent?: boolean;
  ipban?: boolean;
  active?: boolean;
}

/**
 * An INSERT of rows into a LiteBans table, with `?` placeholders (mysql2 and, numbered, pg). Flags
 * go as 0/1 to MySQL and as the text '0'/'1' to PostgreSQL, which reads that as a bit, a boolean
 * or a number alike.
 */
export function liteBansInsert(
  prefix: string,
  kind: LiteBansKind,
  rows: LiteBansRow[],
  dialect: 'mysql' | 'postgres' = 'mysql',
): { sql: string; params: unknown[] } {
  const cols = [
    'uuid',
    'ip',
    'reason',
    'banned_by_uuid',
    'banned_by_name',
    'time',
    'until',
    'server_scope',
    'server_origin',
    'silent',
    'ipban',
    'ipban_wildcard',
    'active',
  ];
  const params: unknown[] = [];
  const bool = (b: boolean | undefined, d: boolean) => (dialect === 'mysql' ? ((b ?? d) ? 1 : 0) : (b ?? d) ? '1' : '0');
  for (const r of rows)
    params.push(
      r.uuid,
      r.ip ?? '203.0.113.7',
      r.reason,
      'CONSOLE',
      r.banned_by_name,
      r.time,
      r.until,
      r.server_scope ?? '*',
      r.server_scope ?? 'lobby',
      bool(r.silent, false),
      bool(r.ipban, false),
      bool(false, false),
      bool(r.active, true),
    );
  const one = `(${cols.map(() => '?').join(', ')})`;
  let sql = `INSERT INTO ${prefix}${kind} (${cols.join(', ')}) VALUES ${rows.map(() => one).join(', ')}`;
  if (dialect === 'postgres') {
    let i = 0;
    sql = sql.replace(/\?/g, () => `$${++i}`);
  }
  return { sql, params };
}

/** AdvancedBan's two tables in MySQL/MariaDB, as its SQLQuery makes them. */
export function advancedBanMysqlTables(prefix = ''): string[] {
  const cols = (t: string) => `CREATE TABLE IF NOT EXISTS \`${prefix}${t}\` (
  \`id\` int NOT NULL AUTO_INCREMENT,
  \`name\` VARCHAR(16) NULL DEFAULT NULL,
  \`uuid\` VARCHAR(35) NULL DEFAULT NULL,
  \`reason\` VARCHAR(255) NULL DEFAULT NULL,
  \`operator\` VARCHAR(16) NULL DEFAULT NULL,
  \`punishmentType\` VARCHAR(16) NULL DEFAULT NULL,
  \`start\` LONG DEFAULT NULL,
  \`end\` LONG DEFAULT NULL,
  \`calculation\` VARCHAR(50) NULL DEFAULT NULL,
  PRIMARY KEY (\`id\`)
) DEFAULT CHARSET=utf8`;
  return [cols('Punishments'), cols('PunishmentHistory')];
}
