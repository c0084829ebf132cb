/**
 * GravitLauncher's LaunchServer as the site sees it, with the `myhttp` auth core (LaunchServer
 * 5.5+, GravitLauncher/HttpMethodExample MyHttpAuthCoreProvider) over its HttpRequester:
 * - every call carries `Authorization: Bearer <bearerToken>`, `Content-Type: application/json;
 *   charset=UTF-8` and `Accept: application/json`, has a 10 s timeout and follows no redirect
 *   (Java's HttpClient default), so a 30x is an error;
 * - bodies are written like Gson: record field names as declared (note `serverID`), null fields
 *   left out, UUIDs as dashed strings;
 * - every answer body is parsed as JSON (an empty body is null, a non-JSON one throws); 2xx maps
 *   onto the record, anything else onto SimpleError { error, code };
 * - records are mapped as strictly as Java does: `UUID.fromString` needs the dashed form,
 *   `new ClientPermissions(roles, permissions)` throws on null lists, asset digests are hex;
 * - per call, the core's own handling: 404 on a user lookup is "no such user"; authorize and
 *   checkServer/joinServer throw AuthException(error); by-token code 1001 means "expired",
 *   refresh code 1002 "bad refresh token".
 */

export class AuthException extends Error {}
export class OAuthAccessTokenExpired extends Error {}

export interface GravitUser {
  username: string;
  uuid: string;
  permissions: string[];
  roles: string[];
  assets: Record<string, { url: string; digest: string; metadata?: Record<string, string> }>;
}

export interface GravitSession {
  id: string;
  accessToken: string;
  refreshToken?: string;
  /** Seconds; 0 means it never expires. */
  expire: number;
  user?: GravitUser;
}

export interface MyHttpConfig {
  userByUsername: string;
  userByUuid: string;
  userByToken: string;
  refreshAccessToken: string;
  authorize: string;
  joinServer: string;
  checkServer: string;
  bearerToken: string;
}

interface HttpResult<T> {
  status: number;
  ok: boolean;
  result: T | null;
  error: { error: string; code: number } | null;
}

const UUID_RE = /^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$/;

/** Gson: drops null and undefined fields. */
function gson(body: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && v !== undefined)));
}

function checkUser(u: unknown): GravitUser {
  const user = u as GravitUser;
  if (!user || typeof user.username !== 'string') throw new Error('User: no username');
  if (typeof user.uuid !== 'string' || !UUID_RE.test(user.uuid))
    throw new Error(`UUID.fromString: Invalid UUID string: ${String(user.uuid)}`);
  if (!Array.isArray(user.permissions) || !Array.isArray(user.roles)) throw new Error('ClientPermissions: NullPointerException');
  if (!user.assets || typeof user.assets !== 'object') throw new Error('getSkinTexture: NullPointerException');
  for (const t of Object.values(user.assets)) {
    if (typeof t.url !== 'string') throw new Error('texture without url');
    if (t.digest != null && !/^([0-9a-fA-F]{2})*$/.test(t.digest)) throw new Error('SecurityHelper.fromHex: bad digest');
    if (t.metadata && Object.values(t.metadata).some((v) => typeof v !== 'string')) throw new Error('metadata must be a string map');
  }
  return user;
}

function checkSession(s: unknown, needUser: boolean): GravitSession {
  const session = s as GravitSession;
  if (
    !session ||
    typeof session.id !== 'string' ||
    typeof session.accessToken !== 'string' ||
    !Number.isInteger(session.expire) ||
    session.expire < 0
  )
    throw new Error('UserSession: bad shape');
  if (needUser) session.user = checkUser(session.user);
  return session;
}

export class GravitLaunchServer {
  /** Every request made, for tests that look at what was sent. */
  readonly sent: { method: string; url: string; headers: Record<string, string>; body?: string }[] = [];

  constructor(private readonly config: MyHttpConfig) {}

  private async send<T>(method: 'GET' | 'POST', url: string, body?: Record<string, unknown>): Promise<HttpResult<T>> {
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=UTF-8',
      accept: 'application/json',
      authorization: `Bearer ${this.config.bearerToken}`,
    };
    const payload = body ? gson(body) : undefined;
    this.sent.push({ method, url, headers, body: payload });
    const res = await fetch(url, { method, headers, body: payload, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    const json: unknown = text === '' ? null : JSON.parse(text);
    const ok = res.status >= 200 && res.status < 300;
    if (ok) return { status: res.status, ok, result: json as T, error: null };
    const err = json as { error?: unknown; code?: unknown } | null;
    return {
      status: res.status,
      ok,
      result: null,
      error: err ? { error: String(err.error ?? null), code: typeof err.code === 'number' ? err.code : 0 } : null,
    };
  }

  async getUserByUsername(username: string): Promise<GravitUser | null> {
    const r = await this.send<GravitUser>(
      'GET',
      this.config.userByUsername.replace('%username%', encodeURIComponent(username).replace(/%20/g, '+')),
    );
    if (r.ok) return checkUser(r.result);
    if (r.status === 404) return null;
    if (!r.error) throw new Error('NullPointerException: response.error()');
    return null;
  }

  /** As the module does it: the userByUsername address with %uuid% replaced. */
  async getUserByUUID(uuid: string): Promise<GravitUser | null> {
    const r = await this.send<GravitUser>('GET', this.config.userByUsername.replace('%uuid%', uuid));
    if (r.ok) return checkUser(r.result);
    if (r.status === 404) return null;
    if (!r.error) throw new Error('NullPointerException: response.error()');
    return null;
  }

  async getUserSessionByOAuthAccessToken(accessToken: string): Promise<GravitSession | null> {
    const r = await this.send<GravitSession>('POST', this.config.userByToken, { accessToken });
    if (r.ok) return checkSession(r.result, true);
    if (!r.error) throw new Error('NullPointerException: response.error().code');
    if (r.error.code === 1001) throw new OAuthAccessTokenExpired();
    return null;
  }

  async refreshAccessToken(refreshToken: string): Promise<GravitSession | null> {
    const r = await this.send<GravitSession>('POST', this.config.refreshAccessToken, { refreshToken });
    if (r.ok) return checkSession(r.result, false);
    if (!r.error) throw new Error('NullPointerException: response.error().code');
    return null;
  }

  async authorize(login: string, password: string, totpCode?: string): Promise<GravitSession> {
    const r = await this.send<GravitSession>('POST', this.config.authorize, { login, password, totpCode });
    if (r.ok) return checkSession(r.result, true);
    if (!r.error) throw new Error('NullPointerException: response.error().error');
    throw new AuthException(r.error.error);
  }

  async joinServer(username: string, uuid: string | null, accessToken: string, serverID: string): Promise<true> {
    const r = await this.send<unknown>('POST', this.config.joinServer, { username, uuid, accessToken, serverID });
    if (r.ok) return true;
    if (!r.error) throw new Error('NullPointerException: response.error().error');
    throw new AuthException(r.error.error);
  }

  async checkServer(username: string, serverID: string): Promise<GravitUser> {
    const r = await this.send<GravitUser>('POST', this.config.checkServer, { username, serverID });
    if (r.ok) return checkUser(r.result);
    if (!r.error) throw new Error('NullPointerException: response.error().error');
    throw new AuthException(r.error.error);
  }
}

export interface HttpCoreConfig {
  getUserByUsernameUrl: string;
  getUserByUUIDUrl: string;
  getUserByTokenUrl: string;
  refreshTokenUrl: string;
  authorizeUrl: string;
  joinServerUrl: string;
  checkServerUrl: string;
  bearerToken: string;
}

export interface HttpCoreUser {
  username: string;
  uuid: string;
  permissions: { perms: string[]; roles: string[] };
  assets: Record<string, { url: string; digest: Buffer; metadata?: Record<string, string> }>;
}

export interface HttpAuthReport {
  minecraftAccessToken: string;
  oauthAccessToken: string;
  oauthRefreshToken: string;
  oauthExpire: number;
  session: { id: string; user: HttpCoreUser; expireIn: number };
}

/**
 * LaunchServer 5.2–5.4's built-in `"type": "http"` core (HttpAuthCoreProvider): the user lookups
 * and the refresh are sent with no Authorization, the session lookup with the player's access
 * token as the bearer, authorize/joinServer/checkServer with the secret; placeholders replaced
 * raw; `getOrThrow` on any non-2xx (the lookups then log and give null); an expired token is
 * told by `error == "auth.expiretoken"`. Digests are byte arrays in Gson's URL-safe base64.
 */
export class GravitHttpCore {
  constructor(private readonly config: HttpCoreConfig) {}

  private async send<T>(
    method: 'GET' | 'POST',
    url: string,
    bearer: string | null,
    body?: Record<string, unknown>,
  ): Promise<{ ok: boolean; result: T | null; error: { error: string; code: number } | null }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=UTF-8',
      accept: 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    };
    const res = await fetch(url, {
      method,
      headers,
      body: body ? gson(body) : undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const json: unknown = text === '' ? null : JSON.parse(text);
    if (res.status >= 200 && res.status < 300) return { ok: true, result: json as T, error: null };
    const err = json as { error?: unknown; code?: unknown } | null;
    return {
      ok: false,
      result: null,
      error: err ? { error: String(err.error ?? null), code: typeof err.code === 'number' ? err.code : 0 } : null,
    };
  }

  private user(u: unknown): HttpCoreUser {
    const user = u as {
      username: string;
      uuid: string;
      permissions: { perms: unknown; roles: unknown };
      assets: Record<string, { url: string; digest: string; metadata?: Record<string, string> }>;
    };
    if (typeof user?.username !== 'string' || !UUID_RE.test(user.uuid)) throw new Error('HttpUser: bad username or uuid');
    if (!user.permissions || !Array.isArray(user.permissions.perms) || !Array.isArray(user.permissions.roles))
      throw new Error('ClientPermissions: bad shape');
    const assets: HttpCoreUser['assets'] = {};
    for (const [k, t] of Object.entries(user.assets ?? {})) {
      if (!/^[A-Za-z0-9_-]*={0,2}$/.test(t.digest)) throw new Error('byte[]: not URL-safe base64');
      assets[k] = { url: t.url, digest: Buffer.from(t.digest, 'base64url'), ...(t.metadata ? { metadata: t.metadata } : {}) };
    }
    return { username: user.username, uuid: user.uuid, permissions: user.permissions as HttpCoreUser['permissions'], assets };
  }

  private report(r: unknown): HttpAuthReport {
    const rep = r as HttpAuthReport;
    if (typeof rep.oauthAccessToken !== 'string' || typeof rep.oauthRefreshToken !== 'string' || !Number.isInteger(rep.oauthExpire))
      throw new Error('AuthReport: bad shape');
    return { ...rep, session: { ...rep.session, user: this.user(rep.session.user) } };
  }

  async getUserByUsername(username: string): Promise<HttpCoreUser | null> {
    const r = await this.send('GET', this.config.getUserByUsernameUrl.replace('%username%', username), null);
    return r.ok ? this.user(r.result) : null;
  }

  async getUserByUUID(uuid: string): Promise<HttpCoreUser | null> {
    const r = await this.send('GET', this.config.getUserByUUIDUrl.replace('%uuid%', uuid), null);
    return r.ok ? this.user(r.result) : null;
  }

  async getUserSessionByOAuthAccessToken(accessToken: string): Promise<{ id: string; user: HttpCoreUser; expireIn: number } | null> {
    const r = await this.send<{ id: string; user: unknown; expireIn: number }>('GET', this.config.getUserByTokenUrl, accessToken);
    if (!r.ok) {
      if (r.error?.error === 'auth.expiretoken') throw new OAuthAccessTokenExpired();
      return null;
    }
    return { ...r.result!, user: this.user(r.result!.user) };
  }

  async refreshAccessToken(refreshToken: string): Promise<HttpAuthReport | null> {
    const r = await this.send('POST', this.config.refreshTokenUrl, null, {
      refreshToken,
      context: { ip: '203.0.113.5', authType: 'CLIENT' },
    });
    return r.ok ? this.report(r.result) : null;
  }

  async authorize(login: string, password: string): Promise<HttpAuthReport> {
    const r = await this.send('POST', this.config.authorizeUrl, this.config.bearerToken, {
      login,
      context: { login, ip: '203.0.113.5', authType: 'CLIENT' },
      password: { type: 'plain', password },
      minecraftAccess: true,
    });
    if (!r.ok && r.error?.error != null) throw new AuthException(r.error.error);
    if (!r.ok) throw new Error('RequestException');
    return this.report(r.result);
  }

  async joinServer(username: string, accessToken: string, serverId: string): Promise<boolean> {
    return (await this.send('POST', this.config.joinServerUrl, this.config.bearerToken, { username, accessToken, serverId })).ok;
  }

  async checkServer(username: string, serverId: string): Promise<HttpCoreUser> {
    const r = await this.send('POST', this.config.checkServerUrl, this.config.bearerToken, { username, serverId });
    if (!r.ok) throw new Error(`RequestException: ${r.error?.error}`);
    return this.user(r.result);
  }
}
