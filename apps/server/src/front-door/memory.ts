import type { IncomingMessage } from 'node:http';
import type { CachedBody, PublicCache } from '../lib/public-cache.ts';
import { hashToken } from '../lib/tokens.ts';
import { sessionCacheKey, type UserCache } from '../lib/user-cache.ts';
import type { SessionActivity } from '../modules/users/session-activity.ts';
import { sessionTokenOf, signedInBrowser } from '../modules/users/session-tokens.ts';
import { acceptsGzip, headerList, latin1Body, type AnswerHeaders, type PublicCapture } from './http.ts';

/**
 * Answers Fastify gave, kept byte for byte to be given again before Fastify sees the next request
 * for them, and only while nothing they were made of can have changed:
 * - a guest's public read (news, tiers, servers, shop, the index page), while the public cache
 *   still holds the very body it was sent from (a write anywhere drops it on every instance);
 * - a signed-in player's own `/api/user/me` and head, while the user cache holds the very session
 *   value the answer was made from, has not been cleared since (any write to users, sessions,
 *   worn skins or roles clears it, on every instance), and the session's use was written by this
 *   instance within the minute (so the route would write nothing either).
 * When unsure, the request goes to Fastify.
 */

/** The signed-in player's own reads that every page asks for; they depend on the session's user, rights and worn skin only. */
export const OWN_ROUTES: ReadonlySet<string> = new Set(['/api/user/me', '/api/user/head']);

/** Session tokens are base64url (session-tokens.ts): anything else is left to the route. */
const TOKEN = /^[A-Za-z0-9_-]{20,200}$/;
/** Public URLs kept; past this the map starts again (URLs with query strings a crawler invents). */
const MAX_PUBLIC = 1000;
/** Own answers kept in all, and their bytes, so that memory stays bounded. */
const MAX_OWN = 10_000;
const MAX_OWN_BYTES = 16 * 1024 * 1024;
/** Own answers kept per session: /me and the head sizes the site asks for, in an encoding or two. */
const PER_SESSION = 16;
/**
 * Credentials headers already read → the session's token hash (null: no token to answer for).
 * The header strings are short and few (one per browser or launcher); reading and hashing the
 * token again cost a fifth of an own answer. Longer headers are read each time.
 */
const MEMO_ENTRIES = 2048;
const MEMO_HEADER_CHARS = 512;

/** An answer as it goes out again: the route it came from (for the metrics), its header list and bytes. */
export interface Kept {
  route: string;
  headers: string[];
  body: string;
}

interface PublicKept extends Kept {
  key: string;
  source: CachedBody;
}

interface OwnKept extends Kept {
  url: string;
  gzip: boolean;
  /** The user cache's session value the answer was made from (compared by identity). */
  session: unknown;
  size: number;
}

/** What onSend knows of an answer to a GET that ended 200. */
export interface Answered {
  url: string;
  route: string;
  requestHeaders: IncomingMessage['headers'];
  headers: AnswerHeaders;
  payload: unknown;
  publicCapture: PublicCapture | undefined;
  /** The session token the route's access check read, and the user it found. */
  token: string | null | undefined;
  user: unknown;
  /** The user cache's generation when the request arrived. */
  arrivedAt: number;
}

export class MemoryAnswers {
  private readonly plain = new Map<string, PublicKept>();
  private readonly gzipped = new Map<string, PublicKept>();
  private readonly own = new Map<string, OwnKept[]>();
  private ownCount = 0;
  private ownBytes = 0;
  /** The user cache's generation the own answers were kept in; a clear forgets them all. */
  private ownGeneration = -1;
  private readonly byAuthorization = new Map<string, string | null>();
  private readonly byCookie = new Map<string, string | null>();

  constructor(
    private readonly publicCache: PublicCache,
    private readonly users: Pick<UserCache, 'generation' | 'peek'>,
    private readonly activity: Pick<SessionActivity, 'fresh'>,
    /** Whether a signed-in player's own reads are kept (SESSION_REPLAY). */
    private readonly keepsOwn = true,
  ) {}

  /** The kept answer for this GET, if it is still right. */
  find(req: IncomingMessage, now: number): Kept | undefined {
    const url = req.url ?? '';
    const gzip = acceptsGzip(req.headers);
    const pub = (gzip ? this.gzipped : this.plain).get(url);
    if (pub) {
      if (!this.publicCache.isCurrent(pub.key, pub.source)) return undefined;
      return pub.source.guestsOnly && signedInBrowser(req.headers) ? undefined : pub;
    }
    if (!url.startsWith('/api/user/')) return undefined;
    this.syncOwn();
    if (this.ownCount === 0) return undefined;
    const tokenHash = this.tokenHashOf(req.headers);
    if (tokenHash === null) return undefined;
    const kept = this.own.get(tokenHash);
    const at = kept?.findIndex((e) => e.url === url && e.gzip === gzip) ?? -1;
    if (at < 0) return undefined;
    const entry = kept![at]!;
    if (this.users.peek(sessionCacheKey(tokenHash), now) !== entry.session) {
      this.dropOwn(tokenHash, kept!, at);
      return undefined;
    }
    return this.activity.fresh(tokenHash, now) ? entry : undefined;
  }

  /** Keeps Fastify's answer to a GET that ended 200, when it may be given again. */
  remember(a: Answered): void {
    if (a.publicCapture) return this.keepPublic(a);
    if (this.keepsOwn && OWN_ROUTES.has(a.route)) this.keepOwn(a);
  }

  private keepPublic(a: Answered): void {
    const { key, body: source, gzip } = a.publicCapture!;
    if (!this.publicCache.isCurrent(key, source)) return;
    const map = gzip ? this.gzipped : this.plain;
    const seen = map.get(a.url);
    // A signed-in visitor's answer stays out of a URL whose guests' answer is kept and current.
    if (seen?.source.guestsOnly && !source.guestsOnly && this.publicCache.isCurrent(seen.key, seen.source)) return;
    const bytes = gzip ? source.gzip : source.json;
    const headers = headerList(a.headers, bytes.length);
    if (!headers) return;
    if (!seen && map.size >= MAX_PUBLIC) map.clear();
    map.set(a.url, { route: a.route, headers, body: latin1Body(bytes), key, source });
  }

  private keepOwn(a: Answered): void {
    const token = a.token;
    if (!token || !TOKEN.test(token) || a.user === null || a.user === undefined) return;
    this.syncOwn();
    // Made before a write to the cached tables: what it shows may be gone.
    if (a.arrivedAt !== this.ownGeneration) return;
    const payload = a.payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : null;
    // Fastify adds a default content type after onSend: such an answer is left alone.
    if (!body || a.headers['content-type'] === undefined) return;
    const tokenHash = hashToken(token);
    const session = this.users.peek(sessionCacheKey(tokenHash)) as { user?: unknown } | undefined;
    // Made from the session value the cache holds now, or not kept.
    if (!session || session.user !== a.user) return;
    const headers = headerList(a.headers, body.length);
    if (!headers) return;
    const size = body.length + headers.reduce((n, v) => n + v.length, 0) + 256;
    if (this.ownCount >= MAX_OWN || this.ownBytes + size > MAX_OWN_BYTES) this.forgetOwn();
    const gzip = acceptsGzip(a.requestHeaders);
    const entry: OwnKept = { route: a.route, headers, body: latin1Body(body), url: a.url, gzip, session, size };
    const kept = this.own.get(tokenHash);
    const same = kept?.findIndex((e) => e.url === entry.url && e.gzip === gzip) ?? -1;
    if (kept && same >= 0) {
      this.ownBytes -= kept[same]!.size;
      kept[same] = entry;
    } else if (!kept) {
      this.own.set(tokenHash, [entry]);
      this.ownCount++;
    } else {
      // A session asking many URLs (head sizes, query strings) keeps its latest few.
      if (kept.length >= PER_SESSION) {
        this.ownBytes -= kept.shift()!.size;
        this.ownCount--;
      }
      kept.push(entry);
      this.ownCount++;
    }
    this.ownBytes += size;
  }

  /** The request's session token as the users core reads it, hashed; from the memo when its header was seen. */
  private tokenHashOf(headers: IncomingMessage['headers']): string | null {
    const auth = headers.authorization;
    // Only a Bearer header decides alone; with any other the cookie counts (sessionTokenOf).
    if (auth !== undefined) return auth.startsWith('Bearer ') ? this.memo(this.byAuthorization, auth, headers) : this.read(headers);
    const cookie = headers.cookie;
    return cookie === undefined ? null : this.memo(this.byCookie, cookie, headers);
  }

  private memo(seen: Map<string, string | null>, header: string, headers: IncomingMessage['headers']): string | null {
    const known = seen.get(header);
    if (known !== undefined) return known;
    const tokenHash = this.read(headers);
    if (header.length <= MEMO_HEADER_CHARS) {
      if (seen.size >= MEMO_ENTRIES) seen.clear();
      seen.set(header, tokenHash);
    }
    return tokenHash;
  }

  private read(headers: IncomingMessage['headers']): string | null {
    const token = sessionTokenOf(headers);
    return token !== null && TOKEN.test(token) ? hashToken(token) : null;
  }

  /** Forgets every own answer kept before the user cache was last cleared. */
  private syncOwn(): void {
    const generation = this.users.generation;
    if (generation !== this.ownGeneration) {
      this.forgetOwn();
      this.ownGeneration = generation;
    }
  }

  private dropOwn(tokenHash: string, kept: OwnKept[], at: number): void {
    this.ownBytes -= kept[at]!.size;
    kept.splice(at, 1);
    if (kept.length === 0) this.own.delete(tokenHash);
    this.ownCount--;
  }

  private forgetOwn(): void {
    this.own.clear();
    this.ownCount = 0;
    this.ownBytes = 0;
  }
}
