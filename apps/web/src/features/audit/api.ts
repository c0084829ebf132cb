import type { AuditPage } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export function fetchAudit(page: number, entity: string): Promise<AuditPage> {
  const query = new URLSearchParams({ page: String(page) });
  if (entity) query.set('entity', entity);
  return api<AuditPage>(`/api/admin/audit?${query}`);
}
