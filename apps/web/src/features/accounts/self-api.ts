import type { DeleteAccountBody, EmailChangeBody, EmailChangeResponse, EmailStatus, MessageResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const EMAIL_STATUS_KEY = ['user', 'email'] as const;

export const fetchEmailStatus = () => api<EmailStatus>('/api/user/email');
export const requestEmailChange = (body: EmailChangeBody) => api<EmailChangeResponse>('/api/user/email', { method: 'POST', body });
export const withdrawEmailChange = () => api<MessageResponse>('/api/user/email/pending', { method: 'DELETE' });
export const confirmEmailChange = (token: string) =>
  api<MessageResponse>(`/api/user/email/confirm/${encodeURIComponent(token)}`, { method: 'POST' });
export const cancelEmailChange = (token: string) =>
  api<MessageResponse>(`/api/user/email/cancel/${encodeURIComponent(token)}`, { method: 'POST' });
export const deleteAccount = (body: DeleteAccountBody) => api<MessageResponse>('/api/user/delete-account', { method: 'POST', body });
