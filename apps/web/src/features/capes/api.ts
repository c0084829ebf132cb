import type { AdminCape, CapeGrantBody, DonateTier } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const ADMIN_CAPES_KEY = ['capes', 'admin'] as const;
export const TIERS_KEY = ['capes', 'tiers'] as const;

export const fetchAdminCapes = () => api<AdminCape[]>('/api/admin/capes');
/** The donate tiers a cape can be given to. */
export const fetchTiers = () => api<DonateTier[]>('/api/donate/fully');

export function uploadCape(file: File, title: string): Promise<AdminCape> {
  const form = new FormData();
  form.append('title', title);
  form.append('cape', file);
  return api<AdminCape>('/api/admin/capes', { method: 'POST', body: form });
}

export const renameCape = (id: number, title: string) => api<AdminCape>(`/api/admin/capes/${id}`, { method: 'PUT', body: { title } });
export const deleteCape = (id: number) => api<{ message: string }>(`/api/admin/capes/${id}`, { method: 'DELETE' });
export const grantCape = (id: number, body: CapeGrantBody) => api<AdminCape>(`/api/admin/capes/${id}/grants`, { method: 'POST', body });
export const revokeCape = (id: number, grantId: number) => api<AdminCape>(`/api/admin/capes/${id}/grants/${grantId}`, { method: 'DELETE' });
