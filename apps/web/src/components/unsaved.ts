import { createContext, useContext, useEffect } from 'react';
import { navigate } from 'wouter/use-browser-location';
import { setPopStateGate } from '../lib/popstate-gate.ts';

/**
 * Leaving a form with unsaved text asks first, everywhere. Every form of the kit
 * (form/Form.tsx) registers here while it is dirty, under the modal it stands in (or the page);
 * a Modal asks before Escape, its × or a click on the backdrop closes it with a dirty form inside;
 * a form's «Отмена» asks; a click on a link to another screen, or the browser's Back and Forward,
 * asks while any form is dirty. The question is the site's own dialog (DiscardDialog.tsx, loaded
 * when first needed), never window.confirm. Closing or reloading the tab is left to the browser.
 */

/** A modal's identity; null: the page. */
export type UnsavedScope = object | null;
export const UnsavedScopeContext = createContext<UnsavedScope>(null);

const dirty = new Map<object, UnsavedScope>();

/** Whether a form in `scope` (a modal) — or, without one, anywhere — holds unsaved text. */
export function hasUnsaved(scope?: object): boolean {
  for (const s of dirty.values()) if (scope === undefined || s === scope) return true;
  return false;
}

/** Registers the calling form while `isDirty`, under the modal around it. */
export function useUnsavedChanges(isDirty: boolean): void {
  const scope = useContext(UnsavedScopeContext);
  useEffect(() => {
    if (!isDirty) return;
    const key = {};
    dirty.set(key, scope);
    sync();
    return () => {
      dirty.delete(key);
      sync();
    };
  }, [isDirty, scope]);
}

let asking: Promise<boolean> | null = null;

/** «Уйти без сохранения?» in the site's dialog: true when the player lets the text go. */
export function confirmDiscard(): Promise<boolean> {
  asking ??= import('./DiscardDialog.tsx')
    .then((m) => m.askDiscard())
    .finally(() => {
      asking = null;
    });
  return asking;
}

/** Runs `leave` at once when nothing in `scope` is unsaved, else after the player agrees. */
export function leaveIfAgreed(scope: object | undefined, leave: () => void): void {
  if (!hasUnsaved(scope)) return leave();
  void confirmDiscard().then((ok) => {
    if (ok) leave();
  });
}

// A link to another screen, clicked while a form is dirty: caught before the router sees it.
function onClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const link = (e.target as Element | null)?.closest?.('a[href]');
  if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== '_self') || link.hasAttribute('download')) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || (url.pathname === location.pathname && url.search === location.search)) return;
  e.preventDefault();
  e.stopPropagation();
  void confirmDiscard().then((ok) => {
    if (!ok) return;
    dirty.clear();
    sync();
    navigate(url.pathname + url.search + url.hash);
  });
}

/** Where the dirty form is: the address Back and Forward return to while the player is asked. */
let here = '';
const address = () => location.pathname + location.search + location.hash;
const remember = () => {
  here = address();
};

/**
 * Back or Forward while a form is dirty, seen before the router (lib/popstate-gate.ts): the
 * form's address is put back at once, so the page never changes under the question; agreeing then
 * goes where the browser was going.
 */
function onPopState(e: PopStateEvent): void {
  const target = address();
  const [wasAt] = here.split('#');
  if (target.split('#')[0] === wasAt) return remember(); // a jump within the page
  e.stopImmediatePropagation();
  history.pushState(null, '', here);
  void confirmDiscard().then((ok) => {
    if (!ok) return;
    dirty.clear();
    sync();
    navigate(target);
  });
}

let listening = false;
function sync(): void {
  const want = dirty.size > 0;
  if (want === listening) return;
  listening = want;
  // Visible to tests and to styles: the page holds unsaved text.
  document.documentElement.toggleAttribute('data-unsaved', want);
  if (want) {
    remember();
    document.addEventListener('click', onClick, true);
    setPopStateGate(onPopState);
    window.addEventListener('pushState', remember);
    window.addEventListener('replaceState', remember);
  } else {
    document.removeEventListener('click', onClick, true);
    setPopStateGate(null);
    window.removeEventListener('pushState', remember);
    window.removeEventListener('replaceState', remember);
  }
}
