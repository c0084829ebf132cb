import type { SiteInfo } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api.ts';

const FALLBACK: SiteInfo = {
  name: 'Kubik',
  launcher: { version: 'v1.0.0', windows_url: '#', linux_url: '#' },
  support: { vk: '#', telegram: '#', discord: '#' },
};

export const SITE_KEY = ['site'] as const;
export const fetchSite = () => api<SiteInfo>('/api/site');

/** Site name, launcher and support links from the server configuration. */
export function useSite(): SiteInfo {
  const { data } = useQuery({ queryKey: SITE_KEY, queryFn: fetchSite, staleTime: Infinity });
  return data ?? FALLBACK;
}
