import type { Insertable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { LegalConsentsTable } from './legal.tables.ts';

// Queries of the seller's legal side: per-item fiscal settings, legal documents, consents.

export async function fiscalItemRows(db: Db) {
  return db.selectFrom('fiscal_items').selectAll().execute();
}

export async function fiscalItemRow(db: Db, kind: string, itemId: number) {
  return db.selectFrom('fiscal_items').selectAll().where('kind', '=', kind).where('item_id', '=', itemId).executeTakeFirst();
}

export async function saveFiscalItem(
  db: Db,
  row: { kind: string; item_id: number; vat_code: number | null; payment_subject: string | null },
) {
  const now = Date.now();
  await db
    .insertInto('fiscal_items')
    .values({ ...row, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['kind', 'item_id']).doUpdateSet({ vat_code: row.vat_code, payment_subject: row.payment_subject, updated_at: now }),
    )
    .execute();
}

/** Shop items and donate tiers that exist now, with the names the owner sees. */
export async function sellables(db: Db): Promise<{ kind: 'shop_item' | 'tier'; id: number; title: string }[]> {
  const items = await db.selectFrom('shop_items').select(['id', 'name']).where('deleted_at', 'is', null).orderBy('id').execute();
  const tiers = await db.selectFrom('donate_tiers').select(['id', 'title']).orderBy('position').orderBy('id').execute();
  return [
    ...tiers.map((t) => ({ kind: 'tier' as const, id: t.id, title: t.title })),
    ...items.map((i) => ({ kind: 'shop_item' as const, id: i.id, title: i.name })),
  ];
}

export async function sellableExists(db: Db, kind: string, id: number): Promise<boolean> {
  if (kind === 'tier') return !!(await db.selectFrom('donate_tiers').select('id').where('id', '=', id).executeTakeFirst());
  return !!(await db.selectFrom('shop_items').select('id').where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst());
}

export async function documentVersions(db: Db, kind: string) {
  return db
    .selectFrom('legal_documents')
    .leftJoin('users', 'users.id', 'legal_documents.published_by')
    .select([
      'legal_documents.kind',
      'legal_documents.version',
      'legal_documents.title',
      'legal_documents.body',
      'legal_documents.published_at',
      'users.username as published_by',
    ])
    .where('legal_documents.kind', '=', kind)
    .orderBy('legal_documents.version', 'desc')
    .execute();
}

/** The newest version of each published document. */
export async function latestDocuments(db: Db) {
  const rows = await db
    .selectFrom('legal_documents as d')
    .selectAll('d')
    .where(({ eb, selectFrom }) =>
      eb(
        'd.version',
        '=',
        selectFrom('legal_documents as n')
          .select((n) => n.fn.max('n.version').as('v'))
          .whereRef('n.kind', '=', 'd.kind'),
      ),
    )
    .execute();
  return rows;
}

export async function insertDocument(
  db: Db,
  row: { kind: string; version: number; title: string; body: string; published_at: number; published_by: number | null },
) {
  await db.insertInto('legal_documents').values(row).execute();
}

export async function lastVersion(db: Db, kind: string): Promise<number> {
  const r = await db
    .selectFrom('legal_documents')
    .select((eb) => eb.fn.max('version').as('v'))
    .where('kind', '=', kind)
    .executeTakeFirst();
  return Number(r?.v ?? 0);
}

export async function insertConsents(db: Db, rows: Insertable<LegalConsentsTable>[]) {
  if (rows.length > 0) await db.insertInto('legal_consents').values(rows).execute();
}

/** The newest version of each kind the user accepted. */
export async function acceptedVersions(db: Db, userId: number): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('legal_consents')
    .select(['kind', (eb) => eb.fn.max('version').as('v')])
    .where('user_id', '=', userId)
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.v)]));
}

export async function consentPage(db: Db, q: { user_id?: number; kind?: string; before?: number }, limit: number) {
  let query = db
    .selectFrom('legal_consents as c')
    .leftJoin('users as u', 'u.id', 'c.user_id')
    .select([
      'c.id',
      'c.user_id',
      'u.username',
      'c.guest_order_id',
      'c.guest_nickname',
      'c.kind',
      'c.version',
      'c.accepted_at',
      'c.ip',
      'c.user_agent',
      'c.source',
    ])
    .orderBy('c.id', 'desc')
    .limit(limit);
  if (q.user_id !== undefined) query = query.where('c.user_id', '=', q.user_id);
  if (q.kind !== undefined) query = query.where('c.kind', '=', q.kind);
  if (q.before !== undefined) query = query.where('c.id', '<', q.before);
  return query.execute();
}
