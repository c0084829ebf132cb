import type { ConsentKind, ConsentsNeeded, PublicLegal, PublicLegalDoc } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api.ts';

export const LEGAL_KEY = ['legal'] as const;
export const LEGAL_CONSENTS_KEY = [...LEGAL_KEY, 'consents'] as const;

export const fetchLegal = () => api<PublicLegal>('/api/legal');
export const fetchLegalDoc = (kind: string) => api<PublicLegalDoc>(`/api/legal/${encodeURIComponent(kind)}`);
export const fetchConsentsNeeded = () => api<ConsentsNeeded>('/api/legal/consents');
export const giveConsents = (consents: ConsentKind[]) => api<ConsentsNeeded>('/api/legal/consents', { method: 'POST', body: { consents } });

/** The seller, the age mark and the published documents (the footer, registration, paying). */
export function useLegal(): PublicLegal | undefined {
  return useQuery({ queryKey: LEGAL_KEY, queryFn: fetchLegal, staleTime: 5 * 60_000 }).data;
}
