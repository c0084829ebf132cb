import type { MediaItem, MessageResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const MEDIA_KEY = ['admin', 'media'] as const;
export const fetchMedia = () => api<MediaItem[]>('/api/admin/media');
export const deleteMedia = (hash: string) => api<MessageResponse>(`/api/admin/media/${hash}`, { method: 'DELETE' });
