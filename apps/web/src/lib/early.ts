/**
 * Reads the first page asks for before the app's own script has arrived (see boot.ts, which
 * starts them). Shared by both sides as a type only, so boot.ts stays a few hundred bytes.
 */
export interface EarlyReads {
  /** When boot.ts ran (performance.now()). */
  at: number;
  /** Answers by path, each taken at most once. */
  reads: Record<string, Promise<Response> | undefined>;
  /** On a page the server drew: the paths it was drawn from (main.tsx hydrates with just those). */
  drawnFrom?: string[];
}

declare global {
  // A global (window's in the browser), so the server can hand a prerender its answers the same way (entry-server.tsx).
  var __kubikEarly: EarlyReads | undefined;
}

/** An early answer is only worth using while the first page is still loading. */
const FRESH_MS = 10_000;

/** The early answer to a GET of `path`, once; later calls (and other paths) fetch anew. */
export function takeEarly(path: string): Promise<Response> | undefined {
  const early = globalThis.__kubikEarly;
  const read = early?.reads[path];
  if (!early || !read) return undefined;
  delete early.reads[path];
  return performance.now() - early.at < FRESH_MS ? read : undefined;
}
