/**
 * Where notifications are drawn while modal dialogs are open. A modal <dialog> sits in the
 * browser's top layer, above everything else, and makes the rest of the page inert: a toast
 * drawn outside it would sit under its backdrop, unreadable, unclickable and hidden from screen
 * readers. So each open modal offers a host element inside itself, and the notifications are
 * rendered into the innermost one (the last opened) until it closes.
 */
type Listener = () => void;

let hosts: readonly HTMLElement[] = [];
const listeners = new Set<Listener>();

function changed(next: readonly HTMLElement[]): void {
  hosts = next;
  for (const listener of listeners) listener();
}

/** Offers `host` while its dialog is open; call the returned function when it closes. */
export function offerToastHost(host: HTMLElement): () => void {
  changed([...hosts, host]);
  return () => changed(hosts.filter((h) => h !== host));
}

/** The innermost open dialog's host, or null when no modal is open. */
export const toastHost = (): HTMLElement | null => hosts.at(-1) ?? null;

export function subscribeToastHost(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
