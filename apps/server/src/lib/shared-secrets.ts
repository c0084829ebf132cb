import type { Db } from '../db/index.ts';

/**
 * One value per database, made on first use and kept for the process (keys read once); a making
 * that failed (the database was down) is tried again on the next use.
 */
export function perDatabase<T>(make: (db: Db) => Promise<T>): (db: Db) => Promise<T> {
  const made = new WeakMap<Db, Promise<T>>();
  return (db) => {
    let value = made.get(db);
    if (!value) {
      value = make(db);
      made.set(db, value);
      value.catch(() => made.delete(db));
    }
    return value;
  };
}

/**
 * A secret the site made for itself, which every instance on the database shares (shared_secrets:
 * made by the migration that first needed it).
 */
export async function sharedSecret(db: Db, name: string): Promise<Buffer> {
  const row = await db.selectFrom('shared_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
