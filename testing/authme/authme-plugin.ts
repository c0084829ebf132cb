import { createHash, randomBytes } from 'node:crypto';
import { verify as bcryptVerify } from '@node-rs/bcrypt';

/**
 * The AuthMe game plugin (AuthMeReloaded, fr.xephi.authme) at its database, as the site meets it:
 *
 * - `createAuthMeTable`: the table as AuthMe's DataSource makes it on its first start
 *   (`MySQL`/`PostgreSqlDataSource.checkTablesAndColumns`, `SQLite.setup`): the CREATE TABLE with
 *   the id column, then one ALTER TABLE per missing column in AuthMe's order, with AuthMe's types,
 *   defaults, `AFTER` places (MySQL), character sets (`password` and the IPs ascii_bin on MySQL),
 *   `username` NOT NULL UNIQUE, and its quirks: SQLite's `INTEGER AUTO_INCREMENT` id that is no
 *   row id (AuthMe's inserts leave it NULL), `TIMESTAMP` columns holding milliseconds, PostgreSQL
 *   folding the unquoted `isLogged` to `islogged`, the `regdate` column added with a default of 0.
 * - `register` and `changePassword`: AuthMe's `/register` and `/changepassword` as
 *   `AbstractSqlDataSource.saveAuth` and `updatePassword` write them (the name in lower case, the
 *   typed name in `realname`, the registration date in milliseconds).
 * - `login`: AuthMe's `/login`: `getAuth` by the name (MySQL and PostgreSQL compare it lower-cased,
 *   SQLite with `LOWER()` on both sides) and `PasswordSecurity.comparePassword` for SHA256 (its
 *   default), SALTEDSHA512 and the bcrypt family, written here from AuthMe's classes (`Sha256`,
 *   `SaltedSha512`, `BCryptHasher`); bcrypt itself comes from the @node-rs/bcrypt package.
 *
 * Driver-free: it talks through `SqlRunner`, which each test makes from its own connection.
 * Nothing here comes from the site.
 */

export type Backend = 'mysql' | 'postgres' | 'sqlite';

/** One statement with `?` placeholders; its rows (none for a write). */
export interface SqlRunner {
  kind: Backend;
  exec(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

/** AuthMe's column settings (DataSource.mySQLColumn…); `salt` empty: AuthMe's default, no salt column. */
export interface AuthMeColumns {
  table: string;
  id: string;
  name: string;
  realname: string;
  password: string;
  salt: string;
  email: string;
  ip: string;
  lastlogin: string;
  regdate: string;
  regip: string;
  x: string;
  y: string;
  z: string;
  world: string;
  yaw: string;
  pitch: string;
  isLogged: string;
  hasSession: string;
  totp: string;
  playerUuid: string;
  premiumUuid: string;
}

export const DEFAULT_COLUMNS: AuthMeColumns = {
  table: 'authme',
  id: 'id',
  name: 'username',
  realname: 'realname',
  password: 'password',
  salt: '',
  email: 'email',
  ip: 'ip',
  lastlogin: 'lastlogin',
  regdate: 'regdate',
  regip: 'regip',
  x: 'x',
  y: 'y',
  z: 'z',
  world: 'world',
  yaw: 'yaw',
  pitch: 'pitch',
  isLogged: 'isLogged',
  hasSession: 'hasSession',
  totp: 'totp',
  playerUuid: '',
  premiumUuid: 'premiumUUID',
};

/** The statements AuthMe runs on a database without its table. */
export function tableStatements(kind: Backend, c: AuthMeColumns = DEFAULT_COLUMNS, now = Date.now()): string[] {
  const t = c.table;
  const add = (column: string, type: string) => `ALTER TABLE ${t} ADD COLUMN ${column} ${type};`;
  if (kind === 'mysql')
    return [
      `CREATE TABLE IF NOT EXISTS ${t} (${c.id} MEDIUMINT(8) UNSIGNED AUTO_INCREMENT,PRIMARY KEY (${c.id})) CHARACTER SET = utf8;`,
      add(c.name, `VARCHAR(255) NOT NULL UNIQUE AFTER ${c.id}`),
      add(c.realname, `VARCHAR(255) NOT NULL AFTER ${c.name}`),
      add(c.password, 'VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL'),
      ...(c.salt ? [add(c.salt, 'VARCHAR(255)')] : []),
      add(c.ip, 'VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin'),
      add(c.lastlogin, 'BIGINT'),
      add(c.regdate, 'BIGINT NOT NULL DEFAULT 0'),
      `UPDATE ${t} SET ${c.regdate} = ${now};`,
      add(c.regip, 'VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin'),
      `ALTER TABLE ${t} ADD COLUMN ${c.x} DOUBLE NOT NULL DEFAULT '0.0' AFTER ${c.lastlogin} , ADD ${c.y} DOUBLE NOT NULL DEFAULT '0.0' AFTER ${c.x} , ADD ${c.z} DOUBLE NOT NULL DEFAULT '0.0' AFTER ${c.y}`,
      `ALTER TABLE ${t} ADD COLUMN ${c.world} VARCHAR(255) NOT NULL DEFAULT 'world' AFTER ${c.z}`,
      add(c.yaw, 'FLOAT'),
      add(c.pitch, 'FLOAT'),
      add(c.email, 'VARCHAR(255)'),
      `ALTER TABLE ${t} ADD COLUMN ${c.isLogged} SMALLINT NOT NULL DEFAULT '0' AFTER ${c.email}`,
      `ALTER TABLE ${t} ADD COLUMN ${c.hasSession} SMALLINT NOT NULL DEFAULT '0' AFTER ${c.isLogged}`,
      add(c.totp, 'VARCHAR(32)'),
      ...(c.playerUuid ? [`ALTER TABLE ${t} ADD COLUMN ${c.playerUuid} VARCHAR(36)`] : []),
      ...(c.premiumUuid ? [`ALTER TABLE ${t} ADD COLUMN ${c.premiumUuid} VARCHAR(36)`] : []),
    ];
  if (kind === 'postgres')
    return [
      `CREATE TABLE IF NOT EXISTS ${t} (${c.id} BIGSERIAL,PRIMARY KEY (${c.id}));`,
      add(c.name, 'VARCHAR(255) NOT NULL UNIQUE'),
      add(c.realname, 'VARCHAR(255) NOT NULL'),
      add(c.password, 'VARCHAR(255) NOT NULL'),
      ...(c.salt ? [add(c.salt, 'VARCHAR(255)')] : []),
      add(c.ip, 'VARCHAR(40)'),
      add(c.lastlogin, 'BIGINT'),
      add(c.regdate, 'BIGINT NOT NULL DEFAULT 0'),
      `UPDATE ${t} SET ${c.regdate} = ${now};`,
      add(c.regip, 'VARCHAR(40)'),
      `ALTER TABLE ${t} ADD COLUMN ${c.x} DOUBLE PRECISION NOT NULL DEFAULT '0.0' , ADD ${c.y} DOUBLE PRECISION NOT NULL DEFAULT '0.0' , ADD ${c.z} DOUBLE PRECISION NOT NULL DEFAULT '0.0';`,
      add(c.world, "VARCHAR(255) NOT NULL DEFAULT 'world'"),
      add(c.yaw, 'FLOAT'),
      add(c.pitch, 'FLOAT'),
      add(c.email, 'VARCHAR(255)'),
      add(c.isLogged, "SMALLINT NOT NULL DEFAULT '0'"),
      add(c.hasSession, "SMALLINT NOT NULL DEFAULT '0'"),
      add(c.totp, 'VARCHAR(32)'),
      ...(c.playerUuid ? [`ALTER TABLE ${t} ADD COLUMN ${c.playerUuid} VARCHAR(36)`] : []),
      ...(c.premiumUuid ? [`ALTER TABLE ${t} ADD COLUMN ${c.premiumUuid} VARCHAR(36)`] : []),
    ];
  return [
    // SQLite cannot add a unique column later, so AuthMe makes the name with the table.
    `CREATE TABLE IF NOT EXISTS ${t} (${c.id} INTEGER AUTO_INCREMENT, ${c.name} VARCHAR(255) NOT NULL UNIQUE, CONSTRAINT table_const_prim PRIMARY KEY (${c.id}));`,
    add(c.realname, "VARCHAR(255) NOT NULL DEFAULT 'Player'"),
    add(c.password, "VARCHAR(255) NOT NULL DEFAULT ''"),
    ...(c.salt ? [add(c.salt, 'VARCHAR(255)')] : []),
    add(c.ip, 'VARCHAR(40)'),
    add(c.lastlogin, 'TIMESTAMP'),
    add(c.regip, 'VARCHAR(40)'),
    add(c.regdate, "TIMESTAMP NOT NULL DEFAULT '0'"),
    `UPDATE ${t} SET ${c.regdate} = ${now};`,
    add(c.x, "DOUBLE NOT NULL DEFAULT '0.0'"),
    add(c.y, "DOUBLE NOT NULL DEFAULT '0.0'"),
    add(c.z, "DOUBLE NOT NULL DEFAULT '0.0'"),
    add(c.world, "VARCHAR(255) NOT NULL DEFAULT 'world'"),
    add(c.yaw, 'FLOAT'),
    add(c.pitch, 'FLOAT'),
    add(c.email, 'VARCHAR(255)'),
    add(c.isLogged, "INT NOT NULL DEFAULT '0'"),
    add(c.hasSession, "INT NOT NULL DEFAULT '0'"),
    add(c.totp, 'VARCHAR(32)'),
    ...(c.playerUuid ? [`ALTER TABLE ${t} ADD COLUMN ${c.playerUuid} VARCHAR(36)`] : []),
    ...(c.premiumUuid ? [`ALTER TABLE ${t} ADD COLUMN ${c.premiumUuid} VARCHAR(36)`] : []),
  ];
}

/** A password hash as AuthMe makes it. */
export type Hashed = { hash: string; salt: string | null };

const hex = (algorithm: string, text: string) => createHash(algorithm).update(text, 'utf8').digest('hex');

/** AuthMe's Sha256: `$SHA$` + 16 hex digits of salt + `$` + sha256(sha256(password) + salt). */
export function sha256(password: string, salt = randomBytes(8).toString('hex')): Hashed {
  return { hash: `$SHA$${salt}$${hex('sha256', hex('sha256', password) + salt)}`, salt: null };
}

/** AuthMe's SaltedSha512: sha512(password + salt), 32 hex digits of salt kept in the salt column. */
export function saltedSha512(password: string, salt = randomBytes(16).toString('hex')): Hashed {
  return { hash: hex('sha512', password + salt), salt };
}

/** AuthMe's PasswordSecurity.comparePassword for the algorithms above; false for any other. */
export async function authMeAccepts(algorithm: string, stored: Hashed, password: string): Promise<boolean> {
  switch (algorithm) {
    case 'SHA256': {
      const parts = stored.hash.split('$');
      return parts.length === 4 && parts[1] === 'SHA' && sha256(password, parts[2]).hash === stored.hash;
    }
    case 'SALTEDSHA512':
      return stored.salt !== null && saltedSha512(password, stored.salt).hash === stored.hash;
    case 'BCRYPT':
    case 'BCRYPT2Y':
      return /^\$2[aby]\$\d\d\$.{53}$/.test(stored.hash) && bcryptVerify(password, stored.hash).catch(() => false);
    default:
      return false;
  }
}

/** AuthMe on one table: the game's side of a player's account. */
export class AuthMePlugin {
  constructor(
    readonly db: SqlRunner,
    readonly c: AuthMeColumns = DEFAULT_COLUMNS,
  ) {}

  /** The first start of the plugin: its table. */
  async createTable(): Promise<void> {
    for (const sql of tableStatements(this.db.kind, this.c)) await this.db.exec(sql);
  }

  /** `/register <password>` by `name` (as typed), with a hash AuthMe made; the address of `/email add`, if any. */
  async register(name: string, hashed: Hashed, options: { email?: string | null; ip?: string } = {}): Promise<void> {
    const c = this.c;
    const cols = [c.name, c.realname, c.password, ...(c.salt ? [c.salt] : []), c.email, c.regdate, c.regip];
    const vals = [
      name.toLowerCase(),
      name,
      hashed.hash,
      ...(c.salt ? [hashed.salt] : []),
      options.email ?? null,
      Date.now(),
      options.ip ?? '127.0.0.1',
    ];
    await this.db.exec(`INSERT INTO ${c.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, vals);
  }

  /** A row put in by hand (an admin's tool, a converter, a broken import): every column as given. */
  async insertRaw(values: {
    name: string;
    realname: string;
    password: string;
    salt?: string | null;
    email?: string | null;
  }): Promise<void> {
    const c = this.c;
    const cols = [c.name, c.realname, c.password, ...(c.salt ? [c.salt] : []), c.email];
    const vals = [values.name, values.realname, values.password, ...(c.salt ? [values.salt ?? null] : []), values.email ?? null];
    await this.db.exec(`INSERT INTO ${c.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, vals);
  }

  /** `/changepassword`: DataSource.updatePassword. */
  async changePassword(name: string, hashed: Hashed): Promise<void> {
    const c = this.c;
    const set = c.salt ? `${c.password} = ?, ${c.salt} = ?` : `${c.password} = ?`;
    await this.db.exec(`UPDATE ${c.table} SET ${set} WHERE ${c.name} = ?`, [
      hashed.hash,
      ...(c.salt ? [hashed.salt] : []),
      name.toLowerCase(),
    ]);
  }

  /** DataSource.getAuth: the row of a name, or null. */
  async row(name: string): Promise<{ name: string; realname: string; hash: string; salt: string | null; email: string | null } | null> {
    const c = this.c;
    const where = this.db.kind === 'sqlite' ? `LOWER(${c.name}) = LOWER(?)` : `${c.name} = ?`;
    const salt = c.salt ? c.salt : 'NULL';
    const rows = await this.db.exec(
      `SELECT ${c.name} AS n, ${c.realname} AS r, ${c.password} AS p, ${salt} AS s, ${c.email} AS e FROM ${c.table} WHERE ${where}`,
      [this.db.kind === 'sqlite' ? name : name.toLowerCase()],
    );
    const r = rows[0];
    if (!r) return null;
    const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
    return { name: String(r.n), realname: String(r.r), hash: String(r.p), salt: str(r.s), email: str(r.e) };
  }

  /** `/login <password>`: whether AuthMe lets the player in (the algorithm is AuthMe's settings.security.passwordHash). */
  async login(name: string, password: string, algorithm: string): Promise<boolean> {
    const row = await this.row(name);
    return row !== null && authMeAccepts(algorithm, { hash: row.hash, salt: row.salt }, password);
  }

  async count(): Promise<number> {
    const rows = await this.db.exec(`SELECT COUNT(*) AS n FROM ${this.c.table}`);
    return Number(rows[0]?.n ?? 0);
  }
}
