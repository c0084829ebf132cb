/** The one way the web app talks to the server: credentials always, the error answer read on failure. */
import type { ErrorCode } from '@kubik/contract';
import { takeEarly } from './early.ts';
import { reactionTo } from './error-codes.ts';

/**
 * A failed call. The API answers `{ error, code, field? }`: `message` is its Russian text
 * (empty when there was none), `code` the stable name of the case to branch on (lib/error-codes.ts;
 * none when the call never reached the server), `field` the dot path of the request body's field
 * it is about (`kits.0.name`), so a form can show it next to that field.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: ErrorCode,
    readonly field?: string,
    /** The rest of the answer, for the few errors that carry more (a ban's `ban`). */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

const AUTH_PAGES = ['/login', '/register', '/forgot-password', '/reset-password'];

let onUnauthorized: () => void = () => {
  if (!AUTH_PAGES.includes(window.location.pathname)) window.location.assign('/login');
};

/** The app replaces the full reload with a router navigation once it has started. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export function isAuthPage(pathname: string): boolean {
  return AUTH_PAGES.includes(pathname);
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  /** The current-user probe: a 401 there only means "guest", not "go log in". */
  quiet401?: boolean;
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const init: RequestInit = { method: options.method ?? 'GET', credentials: 'include', headers: { ...options.headers } };
  if (options.body instanceof FormData) {
    init.body = options.body;
  } else if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    // The first page's reads were started by boot.ts before this script arrived.
    const early = init.method === 'GET' && !options.headers ? takeEarly(path) : undefined;
    res = await (early ?? fetch(path, init));
  } catch {
    throw new ApiError(0, 'Нет связи с сервером. Проверьте подключение к интернету.');
  }
  const raw = await res.text();
  let data: unknown = undefined;
  if (raw) {
    try {
      data = JSON.parse(raw);
    } catch {
      data = undefined;
    }
  }
  if (!res.ok) {
    const body = (data && typeof data === 'object' ? data : {}) as { error?: unknown; code?: unknown; field?: unknown };
    const message = text(body.error) ?? '';
    // The server sends only the contract's codes (its tests fail on any other).
    const error = new ApiError(res.status, message, text(body.code) as ErrorCode | undefined, text(body.field), body);
    // Spec §7: a 401, or the text 'Invalid token' (which the server sends only as code invalid_token).
    if ((res.status === 401 || reactionTo(error.code) === 'relogin') && !options.quiet401) onUnauthorized();
    throw error;
  }
  return data as T;
}
