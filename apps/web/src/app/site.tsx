import type { SiteInfo } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api.ts';

const FALLBACK: SiteInfo = {
  name: 'Kubik',
  launcher: { version: 'v1.0.0', windows_url: '#', linux_url: '#' },
  support: { vk: '#', telegram: '#', discord: '#' },
};

/** Site name, launcher and support links from the server configuration. */
export function useSite(): SiteInfo {
  const { data } = useQuery({ queryKey: ['site'], queryFn: () => api<SiteInfo>('/api/site'), staleTime: Infinity });
  return data ?? FALLBACK;
}
