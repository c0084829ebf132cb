/*
 * Where a page opens. The browser keeps the scroll position right only for pages it loads
 * itself; the router swaps pages in place, so without this a page opened scrolled as far as the
 * previous one was (a phone's /login showed only its buttons). Here a new page starts at its
 * top, or at its #anchor, and Back and Forward return to where the player was on that entry.
 *
 * Each history entry carries a key in history.state; the last position seen on an entry is kept
 * under its key for the tab's life (sessionStorage, so a reload returns there too). A position is
 * put back once the page is tall enough to hold it (a screen's code and data may still be on
 * their way), giving up after a few seconds or as soon as the player scrolls, taps or types.
 */

const STATE_KEY = 'kubikScroll';
const STORE_KEY = 'kubik:scroll';
/** Entries remembered (the oldest are forgotten first). */
const KEEP = 100;
/** How long a position or an anchor is waited for. */
const WAIT_MS = 3000;
/** Frames the page must stay put at the position before it counts as reached. */
const STEADY_FRAMES = 6;

let positions: Record<string, number> = {};
let lastAddress = '';
let marking = false;
let cancelPending: (() => void) | null = null;
let saveTimer = 0;

const address = () => location.pathname + location.search;

function keyOf(state: unknown): string | undefined {
  const key = state && typeof state === 'object' ? (state as Record<string, unknown>)[STATE_KEY] : undefined;
  return typeof key === 'string' ? key : undefined;
}

/** The current entry's key, given to it now if it has none (a fresh push, or a state someone replaced). */
function currentKey(): string {
  const known = keyOf(history.state);
  if (known) return known;
  const key = Math.random().toString(36).slice(2, 10);
  const state: unknown = history.state;
  marking = true;
  try {
    history.replaceState({ ...(state && typeof state === 'object' ? state : {}), [STATE_KEY]: key }, '');
  } finally {
    marking = false;
  }
  return key;
}

function flush(): void {
  window.clearTimeout(saveTimer);
  const keys = Object.keys(positions);
  for (const old of keys.slice(0, Math.max(0, keys.length - KEEP))) delete positions[old];
  try {
    sessionStorage.setItem(STORE_KEY, JSON.stringify(positions));
  } catch {
    // Storage refused (private mode, full): positions live in memory only.
  }
}

/** Written a moment after scrolling stops, and at once when the page goes away (a reload). */
function save(): void {
  window.clearTimeout(saveTimer);
  saveTimer = window.setTimeout(flush, 200);
}

/** Remembers where the current entry is scrolled to (not while a position or an anchor is being reached). */
function record(): void {
  if (cancelPending) return;
  const key = keyOf(history.state);
  if (!key) return;
  delete positions[key];
  positions[key] = Math.round(window.scrollY);
  save();
}

/**
 * Runs `step` every frame until it answers true (done), the time is up, the player acts, or
 * another navigation starts; `onTimeout` then gets the last word.
 */
function untilDone(step: () => boolean, onTimeout: () => void): void {
  cancelPending?.();
  const started = performance.now();
  let frame = 0;
  // Another navigation cancels quietly; an end (reached, timed out, the player took over) keeps the place reached.
  const cancel = () => {
    cancelAnimationFrame(frame);
    for (const type of INTERRUPTIONS) removeEventListener(type, end, true);
    if (cancelPending === cancel) cancelPending = null;
  };
  const end = () => {
    if (cancelPending !== cancel) return;
    cancel();
    record();
  };
  for (const type of INTERRUPTIONS) addEventListener(type, end, { capture: true, passive: true });
  cancelPending = cancel;
  const tick = () => {
    if (cancelPending !== cancel) return;
    if (step()) return end();
    if (performance.now() - started > WAIT_MS) {
      onTimeout();
      return end();
    }
    frame = requestAnimationFrame(tick);
  };
  frame = requestAnimationFrame(tick);
}
const INTERRUPTIONS = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

function maxScroll(): number {
  return document.documentElement.scrollHeight - window.innerHeight;
}

/** Back or Forward: the entry's position, once the page can hold it and has stopped moving. */
function restore(y: number): void {
  let steady = 0;
  let height = -1;
  untilDone(
    () => {
      if (maxScroll() < y) {
        steady = 0;
        return false;
      }
      if (Math.round(window.scrollY) !== y) window.scrollTo(0, y);
      const now = document.documentElement.scrollHeight;
      steady = now === height ? steady + 1 : 0;
      height = now;
      return steady >= STEADY_FRAMES;
    },
    () => window.scrollTo(0, Math.min(y, maxScroll())),
  );
}

/** An address with an #anchor: its element at the top (under the header, by scroll-padding-top), once it is there. */
function toAnchor(hash: string): void {
  let id = hash.slice(1);
  try {
    id = decodeURIComponent(id);
  } catch {
    // a malformed escape: look the id up as written
  }
  const find = () => document.getElementById(id);
  const first = find();
  if (!first) window.scrollTo(0, 0);
  let steady = 0;
  let top = NaN;
  untilDone(
    () => {
      const el = find();
      if (!el) return false;
      el.scrollIntoView({ block: 'start' });
      const now = el.getBoundingClientRect().top;
      steady = Math.abs(now - top) < 1 ? steady + 1 : 0;
      top = now;
      return steady >= STEADY_FRAMES;
    },
    () => {},
  );
}

function toTop(): void {
  cancelPending?.();
  window.scrollTo(0, 0);
}

/** A page the router opened (a link, a redirect): its top or its anchor; the same address again keeps its place. */
function opened(replace: boolean): void {
  if (marking) return;
  const before = lastAddress;
  lastAddress = address();
  currentKey();
  const moved = lastAddress !== before;
  // A redirect (replace) to another page opens it; replacing the query of the same page (a tab, a
  // filter, a search) does not move it.
  if (replace && lastAddress.split('?')[0] === before.split('?')[0]) return;
  if (location.hash) toAnchor(location.hash);
  else if (moved) toTop();
}

function popped(): void {
  lastAddress = address();
  const y = positions[currentKey()];
  if (y) restore(y);
  else if (location.hash) toAnchor(location.hash);
  else toTop();
}

/**
 * Starts looking after the scroll position: called once in the browser after every module has
 * loaded, so that the Back/Forward gate of a form with unsaved text (lib/popstate-gate.ts), whose
 * listener comes first, can stop the event before it reaches this one.
 */
export function startScrollMemory(): void {
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  try {
    positions = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? '{}') as Record<string, number>;
  } catch {
    positions = {};
  }
  lastAddress = address();
  addEventListener('scroll', record, { passive: true });
  addEventListener('pushState', () => opened(false));
  addEventListener('replaceState', () => opened(true));
  addEventListener('popstate', popped);
  addEventListener('pagehide', flush);
  // The first page: back where the player was before a reload, or at its anchor.
  const y = positions[currentKey()];
  if (y !== undefined && y > 0) restore(y);
  else if (location.hash) toAnchor(location.hash);
}
