import { auditSectionEntities, type AuditEntry } from '@kubik/contract';
import type { Db } from '../../db/index.ts';

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One page of the log, newest first, with the name each actor has now; a section takes its entities recorded under an old name too. */
export async function readAuditPage(
  db: Db,
  page: number,
  perPage: number,
  entity?: string,
): Promise<{ entries: AuditEntry[]; total: number }> {
  let base = db.selectFrom('audit_log');
  if (entity) base = base.where('audit_log.entity', 'in', auditSectionEntities(entity));
  const [rows, count] = await Promise.all([
    base
      .leftJoin('users', 'users.id', 'audit_log.actor_id')
      .select([
        'audit_log.id',
        'audit_log.created_at',
        'audit_log.actor_id',
        'users.username as actor_username',
        'audit_log.action',
        'audit_log.entity',
        'audit_log.entity_id',
        'audit_log.before_json',
        'audit_log.after_json',
      ])
      .orderBy('audit_log.id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.n),
    entries: rows.map((r) => ({
      id: r.id,
      created_at: new Date(Number(r.created_at)).toISOString(),
      actor_id: r.actor_id,
      actor_username: r.actor_username ?? null,
      action: r.action,
      entity: r.entity,
      entity_id: r.entity_id,
      before: parseJson(r.before_json),
      after: parseJson(r.after_json),
    })),
  };
}

/** One row of the log, in the caller's transaction (audit.service.ts masks its secrets first). */
export async function insertAuditRow(
  trx: Db,
  row: {
    actor_id: number | null;
    action: string;
    entity: string;
    entity_id: string | null;
    before_json: string | null;
    after_json: string | null;
  },
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({ ...row, created_at: Date.now() })
    .execute();
}
