import '@fontsource/golos-text/cyrillic-400.css';
import '@fontsource/golos-text/cyrillic-700.css';
import '@fontsource/golos-text/latin-400.css';
import '@fontsource/golos-text/latin-700.css';
import './styles/rouble.css';
import './styles/tokens.css';
import './styles/global.css';
import './styles/components.css';
import './styles/layout.css';
import { QueryClient } from '@tanstack/react-query';
import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { loadFirstPage } from './app/first-page.ts';
import './lib/popstate-gate.ts';
import { App } from './app/App.tsx';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 30_000, refetchOnWindowFocus: true, retry: 1 } },
});

const app = <App queryClient={queryClient} />;

// Where each page opens (top, #anchor, or Back's place): a small chunk of its own, off the first
// page's budget; it is in before a player can follow a link.
void import('./app/scroll-memory.ts').then((m) => m.startScrollMemory());

// A page the server drew, and what it was drawn from (boot.ts read it out of the page).
const drawnFrom = globalThis.__kubikEarly?.drawnFrom;

// (Not a top-level await: that would make the bundler split the app into a dozen small chunks.)
void loadFirstPage(queryClient, window.location.pathname, drawnFrom).then(() => {
  const container = document.getElementById('root')!;
  // As a transition the first render (or the taking over of a drawn page) is done in slices that
  // leave the main thread free in between, instead of one long task that a tap would wait for.
  if (drawnFrom) {
    // The server drew this page with the same answers (entry-server.tsx): the app takes over
    // its markup instead of drawing it again. Where they differ after all (a date in another
    // time zone), React draws that part anew, which is no error for the console.
    startTransition(() => {
      hydrateRoot(container, app, { onRecoverableError: (error) => console.warn('hydration:', error) });
    });
    return;
  }
  const root = createRoot(container);
  startTransition(() => root.render(app));
});
