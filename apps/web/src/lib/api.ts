/** The one way the web app talks to the server: credentials always, { error, code, field } read on failure. */
import { takeEarly } from './early.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The server's stable code (`email_exists`, `invalid` …); branch on it, not on the text. */
    readonly code?: string,
    /** The refused field's path in dot form (`kits.0.name`), to show the text beside it. */
    readonly field?: string,
  ) {
    super(message);
  }
}

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
  const text = await res.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!res.ok) {
    const body = data as { error?: unknown; code?: unknown; field?: unknown } | undefined;
    const message = body?.error;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const error = new ApiError(res.status, str(message) ?? '', str(body?.code), str(body?.field));
    if ((res.status === 401 || message === 'Invalid token') && !options.quiet401) onUnauthorized();
    throw error;
  }
  return data as T;
}
