import type { Db } from '../../db/index.ts';
import { insertAuditRow } from './audit.repo.ts';

export interface AuditEntry {
  actorId: number | null;
  action: string;
  entity: string;
  entityId?: string | number | null;
  before?: unknown;
  after?: unknown;
}

const SECRET_KEYS = /password|token|secret|hash/i;

/** Masks secrets so the log never holds a password hash or an RCON password. */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? (v == null || v === '' ? v : '***') : redact(v)]),
    );
  }
  return value;
}

/** Records an admin change, in the caller's transaction so the log and the change agree. */
export async function recordAudit(trx: Db, entry: AuditEntry): Promise<void> {
  await insertAuditRow(trx, {
    actor_id: entry.actorId,
    action: entry.action,
    entity: entry.entity,
    entity_id: entry.entityId == null ? null : String(entry.entityId),
    before_json: entry.before === undefined ? null : JSON.stringify(redact(entry.before)),
    after_json: entry.after === undefined ? null : JSON.stringify(redact(entry.after)),
  });
}
