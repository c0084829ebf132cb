/**
 * The server sets the readable cookie `kubik_in=1` with the session cookie (which is httpOnly) and
 * clears it with it: without it this browser has no session, and asking /api/user/me would only
 * earn a 401 (logged by browsers as a console error). Sessions opened before the marker existed
 * look signed out once, until the next login.
 */
const MARKER = 'kubik_in=1';

export function mayHaveSession(): boolean {
  return typeof document === 'undefined' || document.cookie.split('; ').includes(MARKER);
}

/** The session turned out to be gone (a 401): forget the marker, so the next pages do not ask. */
export function forgetSessionMarker(): void {
  if (typeof document !== 'undefined') document.cookie = 'kubik_in=; Max-Age=0; path=/; SameSite=Lax';
}
