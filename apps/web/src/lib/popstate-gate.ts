/**
 * A first look at Back and Forward, before the router's: listeners of one event on window run in
 * the order they were added, and this one is added when the app's code loads, before the router
 * subscribes. components/unsaved.ts sets the gate while a form holds unsaved text; it may stop the
 * event (stopImmediatePropagation) so the router never leaves the page under its question.
 */
let gate: ((e: PopStateEvent) => void) | null = null;

export function setPopStateGate(next: ((e: PopStateEvent) => void) | null): void {
  gate = next;
}

// (No window when the server draws a page: entry-server.tsx.)
if (typeof window !== 'undefined') addEventListener('popstate', (e) => gate?.(e));
