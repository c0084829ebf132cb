import type { NoticesReadBody, NoticesReadResponse, NoticesResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const NOTICES_KEY = ['notices'] as const;

export const fetchNotices = () => api<NoticesResponse>('/api/user/notifications?page=1');

export const markNoticesRead = (body: NoticesReadBody) =>
  api<NoticesReadResponse>('/api/user/notifications/read', { method: 'POST', body });
