import {
  APPEAL_TOKEN_HEADER,
  type AdminSupportTicket,
  type AdminSupportTicketPage,
  type AppealView,
  type CannedAnswer,
  type CannedAnswerBody,
  type SupportAttachment,
  type SupportCategory,
  type SupportCategoryBody,
  type SupportLinkChoices,
  type SupportMessageBody,
  type SupportStaffList,
  type SupportStaffMessageBody,
  type SupportTicket,
  type SupportTicketBody,
  type SupportTicketPage,
} from '@kubik/contract';
import { api } from '../../lib/api.ts';
import { SUPPORT_KEY } from '../../lib/query-keys.ts';

export { SUPPORT_KEY };

// A player's screens (/support).
export const categoriesKey = [...SUPPORT_KEY, 'categories'] as const;
export const linksKey = [...SUPPORT_KEY, 'links'] as const;
export const ticketsKey = (page: number) => [...SUPPORT_KEY, 'tickets', page] as const;
export const ticketKey = (id: number) => [...SUPPORT_KEY, 'ticket', id] as const;

export const fetchCategories = () => api<SupportCategory[]>('/api/support/categories');
export const fetchLinks = () => api<SupportLinkChoices>('/api/support/links');
export const fetchTickets = (page: number) => api<SupportTicketPage>(`/api/support/tickets?page=${page}`);
export const fetchTicket = (id: number) => api<SupportTicket>(`/api/support/tickets/${id}`);
export const createTicket = (body: SupportTicketBody) => api<{ id: number }>('/api/support/tickets', { method: 'POST', body });
export const replyToTicket = (id: number, body: SupportMessageBody) =>
  api<SupportTicket>(`/api/support/tickets/${id}/messages`, { method: 'POST', body });
export const closeTicket = (id: number) => api<SupportTicket>(`/api/support/tickets/${id}/close`, { method: 'POST' });

/** Sends one picture; its id then goes with the message (an unsent one is forgotten after a day). */
export function uploadAttachment(file: File): Promise<SupportAttachment> {
  const form = new FormData();
  form.append('file', file);
  return api<SupportAttachment>('/api/support/attachments', { method: 'POST', body: form });
}

// Ban appeals: the signed link's token instead of a session.
const appealHeaders = (token: string) => ({ [APPEAL_TOKEN_HEADER]: token });
export const appealKey = (token: string) => [...SUPPORT_KEY, 'appeal', token] as const;
export const fetchAppeal = (token: string) => api<AppealView>('/api/support/appeal', { headers: appealHeaders(token) });
export const sendAppeal = (token: string, message: string) =>
  api<{ id: number }>('/api/support/appeal', { method: 'POST', body: { message }, headers: appealHeaders(token) });
export const replyToAppeal = (token: string, message: string) =>
  api<SupportTicket>('/api/support/appeal/messages', { method: 'POST', body: { message }, headers: appealHeaders(token) });

// Staff (Админ-панель → Обращения).
export interface AdminFilter {
  state: string;
  kind: string;
  category: string;
  assignee: string;
  q: string;
  page: number;
}
export const adminTicketsKey = (f: AdminFilter) => [...SUPPORT_KEY, 'admin', 'tickets', f] as const;
export const adminTicketKey = (id: number) => [...SUPPORT_KEY, 'admin', 'ticket', id] as const;
export const adminCategoriesKey = [...SUPPORT_KEY, 'admin', 'categories'] as const;
export const cannedKey = [...SUPPORT_KEY, 'admin', 'canned'] as const;
export const staffKey = [...SUPPORT_KEY, 'admin', 'staff'] as const;

export function fetchAdminTickets(f: AdminFilter): Promise<AdminSupportTicketPage> {
  const q = new URLSearchParams({ page: String(f.page) });
  if (f.state) q.set('state', f.state);
  if (f.kind) q.set('kind', f.kind);
  if (f.category) q.set('category_id', f.category);
  if (f.assignee) q.set('assignee', f.assignee);
  if (f.q.trim()) q.set('q', f.q.trim());
  return api<AdminSupportTicketPage>(`/api/admin/support/tickets?${q}`);
}
export const fetchAdminTicket = (id: number) => api<AdminSupportTicket>(`/api/admin/support/tickets/${id}`);
export const answerTicket = (id: number, body: SupportStaffMessageBody) =>
  api<AdminSupportTicket>(`/api/admin/support/tickets/${id}/messages`, { method: 'POST', body });
export const staffCloseTicket = (id: number) => api<AdminSupportTicket>(`/api/admin/support/tickets/${id}/close`, { method: 'POST' });
export const reopenTicket = (id: number) => api<AdminSupportTicket>(`/api/admin/support/tickets/${id}/reopen`, { method: 'POST' });
export const assignTicket = (id: number, assignee: number | null) =>
  api<AdminSupportTicket>(`/api/admin/support/tickets/${id}/assignee`, { method: 'PUT', body: { assignee_id: assignee } });
export const fetchStaff = () => api<SupportStaffList>('/api/admin/support/staff');

export const fetchAdminCategories = () => api<SupportCategory[]>('/api/admin/support/categories');
export const saveCategory = (id: number | null, body: SupportCategoryBody) =>
  id === null
    ? api<{ id: number }>('/api/admin/support/categories', { method: 'POST', body })
    : api<SupportCategory>(`/api/admin/support/categories/${id}`, { method: 'PUT', body });
export const deleteCategory = (id: number) => api<{ message: string }>(`/api/admin/support/categories/${id}`, { method: 'DELETE' });

export const fetchCanned = () => api<CannedAnswer[]>('/api/admin/support/canned');
export const saveCanned = (id: number | null, body: CannedAnswerBody) =>
  id === null
    ? api<CannedAnswer>('/api/admin/support/canned', { method: 'POST', body })
    : api<CannedAnswer>(`/api/admin/support/canned/${id}`, { method: 'PUT', body });
export const deleteCanned = (id: number) => api<{ message: string }>(`/api/admin/support/canned/${id}`, { method: 'DELETE' });
