import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { Router } from 'wouter';
import { NotificationsProvider } from '../providers/notifications.tsx';
import { AppRoutes } from './router.tsx';

/**
 * The whole app, the same tree in the browser (main.tsx) and on the server (entry-server.tsx):
 * a page the server drew is taken over by the browser only if both draw it alike.
 */
export function App({ queryClient, ssrPath }: { queryClient: QueryClient; ssrPath?: string }) {
  return (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <Router ssrPath={ssrPath}>
          <NotificationsProvider>
            <AppRoutes />
          </NotificationsProvider>
        </Router>
      </QueryClientProvider>
    </StrictMode>
  );
}
