import type {
  AdminFiscal,
  AdminLegalDoc,
  AdminReceipt,
  AdminReceiptsPage,
  FiscalItem,
  FiscalItemBody,
  FiscalSettingsBody,
  LegalDocBody,
  LegalDocKind,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const FISCAL_KEY = ['admin', 'fiscal'] as const;

export const fetchFiscal = () => api<AdminFiscal>('/api/admin/fiscal');
export const saveFiscal = (body: FiscalSettingsBody) => api<AdminFiscal>('/api/admin/fiscal', { method: 'PUT', body });
export const fetchReceipts = (state: string, kind: string) => {
  const q = new URLSearchParams();
  if (state) q.set('state', state);
  if (kind) q.set('kind', kind);
  return api<AdminReceiptsPage>(`/api/admin/receipts${q.size ? `?${q}` : ''}`);
};
export const resendReceipt = (id: number) => api<AdminReceipt>(`/api/admin/receipts/${id}/resend`, { method: 'POST' });
export const fetchLegalDoc = (kind: LegalDocKind) => api<AdminLegalDoc>(`/api/admin/legal/${kind}`);
export const publishLegalDoc = (kind: LegalDocKind, body: LegalDocBody) =>
  api<AdminLegalDoc>(`/api/admin/legal/${kind}`, { method: 'PUT', body });
export interface MonthIncome {
  month: string;
  count: number;
  received: number;
  refunded: number;
  income: number;
}
export const fetchIncomes = (year: number) => api<MonthIncome[]>(`/api/admin/fiscal/incomes?year=${year}`);
export interface ConsentRow {
  id: number;
  username: string | null;
  /** The nickname a guest paid for, without an account. */
  guest_nickname: string | null;
  kind: string;
  version: number;
  accepted_at: number;
  ip: string | null;
  user_agent: string | null;
  source: string;
}
export const fetchConsents = () => api<{ items: ConsentRow[] }>('/api/admin/legal/consents');
export const fetchFiscalItems = () => api<FiscalItem[]>('/api/admin/fiscal/items');
export const saveFiscalItem = (item: Pick<FiscalItem, 'kind' | 'id'>, body: FiscalItemBody) =>
  api<FiscalItem>(`/api/admin/fiscal/items/${item.kind}/${item.id}`, { method: 'PUT', body });
