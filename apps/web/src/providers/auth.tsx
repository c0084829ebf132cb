import type { MeResponse } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { api, ApiError, isAuthPage, setUnauthorizedHandler } from '../lib/api.ts';
import { forgetSessionMarker, mayHaveSession } from '../lib/session-marker.ts';

/** undefined while unknown (first load), null for a guest. */
export type AuthUser = MeResponse | null | undefined;

interface AuthValue {
  user: AuthUser;
  refresh: () => void;
  logout: () => Promise<void>;
  setBalance: (balance: number) => void;
}

const AuthContext = createContext<AuthValue>({ user: undefined, refresh: () => {}, logout: async () => {}, setBalance: () => {} });

export const ME_KEY = ['me'] as const;

/** The current user, or null for a guest. */
export async function fetchMe(): Promise<MeResponse | null> {
  if (!mayHaveSession()) return null;
  try {
    return await api<MeResponse>('/api/user/me', { quiet401: true });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      forgetSessionMarker();
      return null;
    }
    throw err;
  }
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const me = useQuery({ queryKey: ME_KEY, queryFn: fetchMe, staleTime: 15_000, retry: 1 });
  // A failed refetch (a dropped connection, a busy server) keeps the user it had: sending a
  // signed-in player to /login for it bounces them home once /me answers again.
  const user: AuthUser = me.data !== undefined ? me.data : me.isPending ? undefined : null;

  useEffect(() => {
    setUnauthorizedHandler(() => {
      queryClient.setQueryData(ME_KEY, null);
      if (!isAuthPage(window.location.pathname)) navigate('/login');
    });
  }, [navigate, queryClient]);

  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: ME_KEY }), [queryClient]);

  const logout = useCallback(async () => {
    try {
      await api('/api/user/logout', { method: 'POST', quiet401: true });
    } catch {
      // The session is dropped on our side either way.
    }
    queryClient.removeQueries();
    queryClient.setQueryData(ME_KEY, null);
    navigate('/login');
  }, [navigate, queryClient]);

  const setBalance = useCallback(
    (balance: number) => queryClient.setQueryData<MeResponse | null>(ME_KEY, (u) => (u ? { ...u, balance } : u)),
    [queryClient],
  );

  const value = useMemo(() => ({ user, refresh, logout, setBalance }), [user, refresh, logout, setBalance]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthValue {
  return useContext(AuthContext);
}
