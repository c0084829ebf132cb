import type { MyCapes, SkinInfo, SkinModel, SkinUploadResponse } from '@kubik/contract';
import { api } from '../../lib/api.ts';

/**
 * The logged-in player's skin. The profile page loads it; the header avatar only watches the
 * same key, so a new upload (written here with setQueryData) changes the avatar's URL at once.
 */
export const ownSkinKey = (username: string) => ['skin', 'own', username] as const;

export const fetchOwnSkin = () => api<SkinInfo>('/api/user/skin');

export function uploadSkin(file: File): Promise<SkinUploadResponse> {
  const form = new FormData();
  form.append('skin', file);
  return api<SkinUploadResponse>('/api/user/skin', { method: 'POST', body: form });
}

export const saveSkinModel = (model: SkinModel) => api<SkinInfo>('/api/user/skin/model', { method: 'PUT', body: { model } });

/** The own head at size×size; with the skin's version the browser keeps it for good. */
export function ownHeadUrl(size: number, version?: string): string {
  return `/api/user/head?size=${size}${version ? `&v=${version}` : ''}`;
}

export const MY_CAPES_KEY = ['capes', 'own'] as const;
export const fetchMyCapes = () => api<MyCapes>('/api/user/capes');
/** Puts a cape on (its id) or takes it off (null). */
export const chooseCape = (capeId: number | null) => api<MyCapes>('/api/user/cape', { method: 'PUT', body: { cape_id: capeId } });
