import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import { ClaimQueue, type ClaimOwner } from '../../lib/jobs/index.ts';
import { offlineUuid } from '../../base/offline-uuid.ts';
import type { AuthMeDatabase, AuthMeRow } from './authme.database.ts';
import * as repo from './authme.repo.ts';
import type { AuthMeConfig } from './authme.settings.ts';
import { algorithmOf, displayName, nameProblem, placeholderEmail, readOrder, shownName, text, usableEmail } from './authme.service.ts';
import type { AuthMeLinksTable } from './authme.tables.ts';

/**
 * The import of AuthMe's table (and its dry run): AuthMe's rows in pages of BATCH by name, each
 * page one transaction of the site's database that also moves the run's cursor, so a run stopped
 * anywhere (a crash, a restart, a stop) goes on from the last page done, and a page is never half
 * made. A name linked already is counted and skipped: a second run makes nothing twice. Memory
 * holds one page at a time. Passwords stay AuthMe's hashes (in the links) until each player's
 * first login makes the site's own.
 */

export const IMPORT_JOB = 'authme.import';
export const BATCH = 1000;
const LEASE_MS = 120_000;
/** Refused names kept per run for the owner's list (the count is always whole). */
const REFUSALS_KEPT = 10_000;

/** What a page needs: the site's database and whose claims it writes. */
export interface ImportDeps {
  db: Db;
  claims: ClaimOwner;
}

export type ImportCounts = Pick<
  repo.ImportRow,
  'processed' | 'created' | 'linked' | 'name_collisions' | 'without_email' | 'refused' | 'broken_hashes'
>;

interface Planned {
  user: Insertable<UsersTable>;
  link: Omit<Insertable<AuthMeLinksTable>, 'user_id'>;
}

/** Decides each row of a page against the site's accounts: made, linked already, name taken, refused. */
async function plan(
  db: Db,
  cfg: AuthMeConfig,
  rows: AuthMeRow[],
  importId: number,
  now: number,
): Promise<{ planned: Planned[]; counts: ImportCounts; refusals: { name: string; reason: string }[] }> {
  const counts: ImportCounts = {
    processed: rows.length,
    created: 0,
    linked: 0,
    name_collisions: 0,
    without_email: 0,
    refused: 0,
    broken_hashes: 0,
  };
  const refusals: { name: string; reason: string }[] = [];
  const fit: { row: AuthMeRow; name: string; lower: string }[] = [];
  for (const row of rows) {
    const name = displayName(row);
    const problem = row.name === '' ? 'пустое имя' : nameProblem(name);
    if (problem) {
      counts.refused++;
      refusals.push({ name: shownName(name), reason: problem });
    } else fit.push({ row, name, lower: name.toLowerCase() });
  }
  if (fit.length === 0) return { planned: [], counts, refusals };
  const lowers = fit.map((f) => f.lower);
  const linked = new Set(
    (await db.selectFrom('authme_links').select('authme_name').where('authme_name', 'in', lowers).execute()).map((r) => r.authme_name),
  );
  const taken = new Set(
    (await db.selectFrom('users').select('username_lower').where('username_lower', 'in', lowers).execute()).map((r) => r.username_lower),
  );
  const emails = fit.map((f) => usableEmail(f.row.email)?.toLowerCase()).filter((e): e is string => !!e);
  const usedEmails = new Set(
    emails.length === 0
      ? []
      : (await db.selectFrom('users').select('email_lower').where('email_lower', 'in', emails).execute()).map((r) => r.email_lower),
  );
  const uuids = fit.map((f) => offlineUuid(f.name));
  const usedUuids = new Set((await db.selectFrom('users').select('uuid').where('uuid', 'in', uuids).execute()).map((r) => r.uuid));
  const planned: Planned[] = [];
  for (const [i, f] of fit.entries()) {
    if (linked.has(f.lower)) {
      counts.linked++;
      continue;
    }
    if (taken.has(f.lower)) {
      counts.name_collisions++;
      if (refusals.length < BATCH) refusals.push({ name: shownName(f.name), reason: 'имя занято аккаунтом сайта' });
      continue;
    }
    const email = usableEmail(f.row.email);
    const free = email !== null && !usedEmails.has(email.toLowerCase());
    if (free) usedEmails.add(email.toLowerCase());
    else counts.without_email++;
    const kind = algorithmOf(readOrder(cfg), f.row.password, f.row.salt);
    if (!('algorithm' in kind)) counts.broken_hashes++;
    const uuid = usedUuids.has(uuids[i]!) ? randomUUID() : uuids[i]!;
    usedUuids.add(uuid);
    const address = free ? email : placeholderEmail(f.lower);
    planned.push({
      user: {
        username: f.name,
        username_lower: f.lower,
        email: address,
        email_lower: address.toLowerCase(),
        password_hash: repo.NO_SITE_PASSWORD,
        is_admin: 0,
        balance: 0,
        email_verified_at: free ? now : null,
        created_at: now,
        deleted_at: null,
        uuid,
      },
      link: {
        authme_name: f.lower,
        algorithm: 'algorithm' in kind ? kind.algorithm : (cfg.hash ?? cfg.hashName),
        hash: text(f.row.password) ?? '',
        salt: text(f.row.salt),
        site_hash: repo.NO_SITE_PASSWORD,
        needs_email: free ? 0 : 1,
        lock_hash: null,
        import_id: importId,
        linked_at: now,
      },
    });
    counts.created++;
  }
  return { planned, counts, refusals };
}

export type PageOutcome = 'more' | 'done' | 'lost';

/**
 * One page of a run holding `token`: reads AuthMe's next rows, makes the accounts (an import) or
 * only counts them (a dry run), and moves the cursor, all in one transaction of the site's
 * database that holds only while the run is still ours and running ('lost' otherwise).
 */
export async function importPage(
  deps: ImportDeps,
  cfg: AuthMeConfig,
  adb: AuthMeDatabase,
  run: repo.ImportRow,
  token: string,
): Promise<PageOutcome> {
  const now = Date.now();
  const rows = await adb.page(run.cursor, BATCH);
  if (rows.length === 0) {
    const res = await deps.db
      .updateTable('authme_imports')
      .set({ state: 'done', finished_at: now, lock_token: null, locked_until: null })
      .where('id', '=', run.id)
      .where('lock_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1 ? 'done' : 'lost';
  }
  const { planned, counts, refusals } = await plan(deps.db, cfg, rows, run.id, now);
  const cursor = rows.at(-1)!.name;
  const ok = await deps.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('authme_imports')
      .set((eb) => ({
        cursor,
        locked_until: now + LEASE_MS,
        processed: eb('processed', '+', counts.processed),
        linked: eb('linked', '+', counts.linked),
        name_collisions: eb('name_collisions', '+', counts.name_collisions),
        refused: eb('refused', '+', counts.refused),
        without_email: eb('without_email', '+', counts.without_email),
        broken_hashes: eb('broken_hashes', '+', counts.broken_hashes),
        created: eb('created', '+', counts.created),
      }))
      .where('id', '=', run.id)
      .where('lock_token', '=', token)
      .where('state', '=', 'running')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    if (refusals.length > 0) {
      const kept = Number(
        (
          await trx
            .selectFrom('authme_refusals')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('import_id', '=', run.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
      const room = Math.max(0, REFUSALS_KEPT - kept);
      if (room > 0)
        await trx
          .insertInto('authme_refusals')
          .values(refusals.slice(0, room).map((r) => ({ import_id: run.id, ...r })))
          .execute();
    }
    if (run.mode !== 'import' || planned.length === 0) return true;
    // A name or address taken by a registration meanwhile is skipped (nothing conflicts otherwise: the plan checked).
    const made = await trx
      .insertInto('users')
      .values(planned.map((p) => p.user))
      .onConflict((oc) => oc.doNothing())
      .returning(['id', 'username_lower'])
      .execute();
    const ids = new Map(made.map((r) => [r.username_lower, r.id]));
    const links = planned.flatMap((p) => {
      const id = ids.get(p.user.username_lower);
      return id === undefined ? [] : [{ ...p.link, user_id: id }];
    });
    if (links.length > 0)
      await trx
        .insertInto('authme_links')
        .values(links)
        .onConflict((oc) => oc.doNothing())
        .execute();
    const skipped = planned.length - made.length;
    if (skipped > 0)
      await trx
        .updateTable('authme_imports')
        .set((eb) => ({ created: eb('created', '-', skipped), name_collisions: eb('name_collisions', '+', skipped) }))
        .where('id', '=', run.id)
        .execute();
    return true;
  });
  return ok ? 'more' : 'lost';
}

function queueOf(deps: ImportDeps) {
  return new ClaimQueue(
    deps.db,
    { table: 'authme_imports', leaseMs: LEASE_MS, due: (eb) => eb('state', 'in', ['queued', 'running']) },
    deps.claims,
  );
}

/**
 * Works through the run that is due (one at a time), page after page, until it is done, stopped,
 * lost to another worker or `signal` aborts; `onPage` hears of each page (the CLI's progress).
 * Returns the run's id, or null when none was due.
 */
export async function runImport(
  deps: ImportDeps,
  connect: () => Promise<{ cfg: AuthMeConfig; adb: AuthMeDatabase } | null>,
  options: { signal?: AbortSignal; onPage?: (run: repo.ImportRow) => void } = {},
): Promise<number | null> {
  const queue = queueOf(deps);
  const claim = await queue.claim(1, ['id'], { set: { state: 'running' } });
  const id = claim.rows[0]?.id;
  if (id === undefined) return null;
  try {
    const found = await connect();
    if (!found) {
      await fail(deps.db, id, claim.token, 'AuthMe не подключён');
      return id;
    }
    for (;;) {
      if (options.signal?.aborted) break;
      const run = await repo.importById(deps.db, id);
      if (!run || run.lock_token !== claim.token || run.state !== 'running') break;
      let outcome: PageOutcome;
      try {
        outcome = await importPage(deps, found.cfg, found.adb, run, claim.token);
      } catch (err) {
        await fail(deps.db, id, claim.token, (err as Error).message);
        break;
      }
      if (options.onPage) {
        const after = await repo.importById(deps.db, id);
        if (after) options.onPage(after);
      }
      if (outcome !== 'more') break;
    }
  } finally {
    // Stopped halfway: the run stays 'running' with its cursor, due again for the next pass.
    await queue.release(claim.token);
  }
  return id;
}

async function fail(db: Db, id: number, token: string, error: string): Promise<void> {
  await db
    .updateTable('authme_imports')
    .set({ state: 'failed', error: error.slice(0, 500), finished_at: Date.now(), lock_token: null, locked_until: null })
    .where('id', '=', id)
    .where('lock_token', '=', token)
    .execute();
}

/** Takes back runs an earlier life of this instance was working on: due at once. */
export function takeBackImports(deps: ImportDeps): Promise<number> {
  return queueOf(deps).takeBack();
}
