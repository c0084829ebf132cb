import '@fontsource/golos-text/cyrillic-400.css';
import '@fontsource/golos-text/cyrillic-700.css';
import '@fontsource/golos-text/latin-400.css';
import '@fontsource/golos-text/latin-700.css';
import './styles/rouble.css';
import './styles/tokens.css';
import './styles/global.css';
import './styles/components.css';
import './styles/layout.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { loadFirstPage } from './app/first-page.ts';
import './lib/popstate-gate.ts';
import { NotificationsProvider } from './providers/notifications.tsx';
import { AppRoutes } from './app/router.tsx';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 30_000, refetchOnWindowFocus: true, retry: 1 } },
});

// (Not a top-level await: that would make the bundler split the app into a dozen small chunks.)
void loadFirstPage(queryClient, window.location.pathname).then(() => {
  const root = createRoot(document.getElementById('root')!);
  // As a transition the first render is done in slices that leave the main thread free in
  // between, instead of one long task that a tap would have to wait for.
  startTransition(() => {
    root.render(
      <StrictMode>
        <QueryClientProvider client={queryClient}>
          <NotificationsProvider>
            <AppRoutes />
          </NotificationsProvider>
        </QueryClientProvider>
      </StrictMode>,
    );
  });
});
