import type { IncomingMessage, ServerResponse } from 'node:http';
import { latin1Body } from './public-cache.ts';
import { hashToken } from './tokens.ts';
import { sessionCacheKey, type UserCache } from './user-cache.ts';

/**
 * The signed-in player's own reads that the web app asks for on every page (`GET /api/user/me`,
 * `GET /api/user/head`) answered again from memory, before Fastify sees the request (issue 29:
 * through Fastify's route they reached about a third of a bare server).
 *
 * What is replayed is exactly what Fastify sent for the same session token, URL and
 * Accept-Encoding (status 200, every header but the request id, the bytes), and only while
 * nothing it was made of can have changed:
 * - the session is still in the user cache as the very object that request was answered with
 *   (ended, expired, evicted or reloaded sessions fail this; a ban, a balance change, a logout,
 *   a new skin or role all write to the cached tables, which clears the user cache);
 * - the user cache has not been cleared since that answer was built (its generation): on
 *   PostgreSQL another instance's write clears it through NOTIFY, and a lost channel clears it;
 * - the session's last use was written by this instance within the minute, so Fastify's
 *   onResponse would write nothing either (`fresh`).
 * Anything else — no or unusual credentials, a HEAD, a conditional request, an answer that set
 * a cookie — goes to Fastify as before. When unsure, the request goes to Fastify.
 */

/** The routes whose answers depend on nothing but the session's user, rights and worn skin. */
export const REPLAYED_ROUTES: ReadonlySet<string> = new Set(['/api/user/me', '/api/user/head']);

const SESSION_COOKIE = 'kubik_session';
/** Session tokens are 32 random bytes in base64url (lib/tokens.ts): anything else goes to Fastify. */
const TOKEN = /^[A-Za-z0-9_-]{20,200}$/;
const MAX_ENTRIES = 10_000;
/** What the kept answers may hold in all (bodies and headers), so that memory stays bounded. */
const MAX_BYTES = 16 * 1024 * 1024;
/** Answers kept per session: /me and the head sizes the site asks for, in an encoding or two. */
const PER_SESSION = 16;

/**
 * Credentials headers already read: the raw header (as the client sends it again with every
 * request) → the session's hash and user-cache key, or null when it holds no plain token. Reading
 * the cookie, hashing the token and building the keys again cost about a fifth of a replayed
 * answer's time (issue 29's `/me` ratio); the header strings are short and few (one per browser
 * or launcher), and the map is emptied when it is full.
 */
const MEMO_ENTRIES = 2048;
/** Longer headers are read each time: the memo's worst case stays about a megabyte. */
const MEMO_HEADER_CHARS = 512;

interface Credentials {
  tokenHash: string;
  /** The user cache's key of the session (sessionCacheKey), kept so that no string is built per request. */
  sessionKey: string;
}

interface Entry {
  url: string;
  acceptEncoding: string;
  route: string;
  /** The user cache's session value the answer was made for (compared by identity). */
  session: unknown;
  generation: number;
  /**
   * writeHead's flat [name, value, …] list, content-length included, ending with the request
   * id's name and a slot for its value: tryServe writes the id into the slot, and writeHead reads
   * the list at once, so one list serves every request without a copy.
   */
  headers: string[];
  /** The body as public-cache's latin1Body, sent with `res.end(body, 'latin1')`. */
  body: string;
  size: number;
}

/** The session token exactly as plugins/auth's sessionToken() would read it, or null when unsure. */
export function plainSessionToken(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (auth !== undefined) return bearerToken(auth);
  const cookie = req.headers.cookie;
  return cookie ? cookieToken(cookie) : null;
}

function bearerToken(auth: string): string | null {
  if (!auth.startsWith('Bearer ')) return null;
  const token = auth.slice(7);
  return TOKEN.test(token) ? token : null;
}

function cookieToken(cookie: string): string | null {
  let found: string | null = null;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    // Two session cookies: which one counts is the cookie parser's business.
    if (found !== null) return null;
    found = part.slice(eq + 1).trim();
  }
  return found !== null && TOKEN.test(found) ? found : null;
}

export class SessionReplay {
  /** The kept answers by session (token hash); a session has a few (its URLs × encodings). */
  private readonly entries = new Map<string, Entry[]>();
  private count = 0;
  private readonly byAuthorization = new Map<string, Credentials | null>();
  private readonly byCookie = new Map<string, Credentials | null>();
  private generation = -1;
  private bytes = 0;
  /** Answers given from memory so far (tests read it to tell the two paths apart). */
  served = 0;

  constructor(
    private readonly users: Pick<UserCache, 'generation' | 'peek'>,
    /** True when the session's use was written lately, so the normal route would write nothing now. */
    private readonly fresh: (tokenHash: string, now: number) => boolean,
  ) {}

  /**
   * Keeps Fastify's answer for replay when it may be replayed: called in onSend with the
   * serialized payload. `user` is the request's user (request.user), `startedAt` the user cache's
   * generation when the request arrived (noted by app.ts's server handler).
   */
  remember(input: {
    method: string;
    route: string | undefined;
    url: string;
    status: number;
    token: string | null | undefined;
    user: unknown;
    startedAt: number | undefined;
    requestHeaders: IncomingMessage['headers'];
    headers: Record<string, string | number | string[] | undefined>;
    payload: unknown;
  }): void {
    const { route, token } = input;
    if (input.method !== 'GET' || input.status !== 200 || !route || !REPLAYED_ROUTES.has(route)) return;
    if (!token || !TOKEN.test(token) || input.user === null || input.user === undefined) return;
    if (input.startedAt === undefined || input.startedAt !== this.users.generation) return;
    if (conditional(input.requestHeaders)) return;
    const payload = input.payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : null;
    if (!body) return;
    const tokenHash = hashToken(token);
    const session = this.users.peek(sessionCacheKey(tokenHash)) as { user?: unknown } | undefined;
    // The answer must have been made from the session value the cache holds now.
    if (!session || session.user !== input.user) return;
    // Fastify would add a default content type after onSend: such an answer is left alone.
    if (input.headers['content-type'] === undefined) return;
    const flat: string[] = [];
    for (const [name, value] of Object.entries(input.headers)) {
      if (value === undefined || name === 'content-length' || name === 'x-request-id') continue;
      // An answer that sets a cookie (a session refresh, say) is never repeated.
      if (name === 'set-cookie' || name === 'connection') return;
      for (const v of Array.isArray(value) ? value : [value]) flat.push(name, String(v));
    }
    flat.push('content-length', String(body.length), 'x-request-id', '');
    this.sync();
    const size = body.length + flat.reduce((n, v) => n + v.length, 0) + 256;
    if (this.count >= MAX_ENTRIES || this.bytes + size > MAX_BYTES) this.forget();
    const entry: Entry = {
      url: input.url,
      acceptEncoding: input.requestHeaders['accept-encoding'] ?? '',
      route,
      session,
      generation: this.users.generation,
      headers: flat,
      body: latin1Body(body),
      size,
    };
    const kept = this.entries.get(tokenHash);
    const same = kept?.findIndex((e) => e.url === entry.url && e.acceptEncoding === entry.acceptEncoding) ?? -1;
    if (kept && same >= 0) {
      this.bytes -= kept[same]!.size;
      kept[same] = entry;
    } else if (!kept) {
      this.entries.set(tokenHash, [entry]);
      this.count++;
    } else {
      // A session asking many URLs (head sizes, query strings) keeps its latest few: each request scans its list.
      if (kept.length >= PER_SESSION) {
        this.bytes -= kept.shift()!.size;
        this.count--;
      }
      kept.push(entry);
      this.count++;
    }
    this.bytes += size;
  }

  /** Answers from memory when it safely can; returns the route pattern it answered for, or null (Fastify's turn). */
  tryServe(req: IncomingMessage, res: ServerResponse, requestId: string): string | null {
    const url = req.url;
    if (req.method !== 'GET' || !url?.startsWith('/api/user/') || conditional(req.headers)) return null;
    this.sync();
    if (this.count === 0) return null;
    const credentials = this.credentialsOf(req);
    if (!credentials) return null;
    const kept = this.entries.get(credentials.tokenHash);
    if (!kept) return null;
    const acceptEncoding = req.headers['accept-encoding'] ?? '';
    const at = kept.findIndex((e) => e.url === url && e.acceptEncoding === acceptEncoding);
    if (at < 0) return null;
    const entry = kept[at]!;
    const now = Date.now();
    if (entry.generation !== this.users.generation || this.users.peek(credentials.sessionKey, now) !== entry.session) {
      kept.splice(at, 1);
      if (kept.length === 0) this.entries.delete(credentials.tokenHash);
      this.count--;
      this.bytes -= entry.size;
      return null;
    }
    if (!this.fresh(credentials.tokenHash, now)) return null;
    const headers = entry.headers;
    headers[headers.length - 1] = requestId;
    res.writeHead(200, headers);
    res.end(entry.body, 'latin1');
    this.served++;
    return entry.route;
  }

  /** The request's session token as plainSessionToken reads it, hashed, from the memo when its header was seen. */
  private credentialsOf(req: IncomingMessage): Credentials | null {
    const auth = req.headers.authorization;
    if (auth !== undefined) return this.memo(this.byAuthorization, auth, bearerToken);
    const cookie = req.headers.cookie;
    return cookie ? this.memo(this.byCookie, cookie, cookieToken) : null;
  }

  private memo(seen: Map<string, Credentials | null>, header: string, read: (header: string) => string | null): Credentials | null {
    const known = seen.get(header);
    if (known !== undefined) return known;
    const token = read(header);
    const tokenHash = token === null ? null : hashToken(token);
    const credentials = tokenHash === null ? null : { tokenHash, sessionKey: sessionCacheKey(tokenHash) };
    if (header.length <= MEMO_HEADER_CHARS) {
      if (seen.size >= MEMO_ENTRIES) seen.clear();
      seen.set(header, credentials);
    }
    return credentials;
  }

  /** Forgets everything kept before the user cache was last cleared. */
  private sync(): void {
    const generation = this.users.generation;
    if (generation !== this.generation) {
      this.forget();
      this.generation = generation;
    }
  }

  private forget(): void {
    this.entries.clear();
    this.count = 0;
    this.bytes = 0;
  }
}

/** Requests whose answer may depend on what the client already has. */
function conditional(headers: IncomingMessage['headers']): boolean {
  return (
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    headers['if-match'] !== undefined ||
    headers['if-unmodified-since'] !== undefined ||
    headers['if-range'] !== undefined ||
    headers.range !== undefined
  );
}
