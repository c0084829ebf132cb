import type { HomeShowcase, PlayerPrivacy, PlayerProfile } from '@kubik/contract';
import { api } from '../../lib/api.ts';

export const playerKey = (name: string) => ['players', name.toLowerCase()] as const;
export const SHOWCASE_KEY = ['home', 'showcase'] as const;
export const PRIVACY_KEY = ['user', 'privacy'] as const;

export const fetchPlayer = (name: string) => api<PlayerProfile>(`/api/players/${encodeURIComponent(name)}`);
export const fetchShowcase = () => api<HomeShowcase>('/api/home/showcase');
export const fetchPrivacy = () => api<PlayerPrivacy>('/api/user/privacy');
export const savePrivacy = (body: PlayerPrivacy) => api<PlayerPrivacy>('/api/user/privacy', { method: 'PUT', body });

/** The public profile's address. */
export const playerPath = (name: string) => `/u/${encodeURIComponent(name)}`;
