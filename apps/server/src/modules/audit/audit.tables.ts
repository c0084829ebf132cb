import type { Generated } from 'kysely';

export interface AuditLogTable {
  id: Generated<number>;
  actor_id: number | null;
  /** For example 'news.create', 'user.update', 'server.delete'. */
  action: string;
  entity: string;
  entity_id: string | null;
  /** JSON of the record before and after the change; secrets are masked by the caller. */
  before_json: string | null;
  after_json: string | null;
  created_at: number;
}

export interface AuditTables {
  audit_log: AuditLogTable;
}
