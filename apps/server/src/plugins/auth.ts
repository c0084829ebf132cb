import { PERMISSIONS, type RoutePermission } from '@kubik/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { requireBearerSecret } from '../lib/bearer-secret.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
import type { User } from '../modules/users/users.repo.ts';
import type { StaffRights } from '../modules/users/staff.ts';
import { DEVICE_COOKIE, SESSION_COOKIE, SIGNED_IN_COOKIE, sessionTokenOf } from '../modules/users/session-tokens.ts';

const DEVICE_COOKIE_MAX_AGE_MS = 400 * 86_400_000;

/**
 * Who may call a route; every /api route declares it in `config.access` (see app.ts).
 * 'gravit': only GravitLauncher's LaunchServer, by the bearer secret GRAVIT_SECRET; a site
 * session counts for nothing there.
 */
export type Access = 'public' | 'user' | 'admin' | 'gravit';

/** Finds the live session's user (and when the session ends) by its token; injected by app.ts. */
export type SessionLookup = (token: string) => Promise<{ user: User; rights: StaffRights; expiresAt: number } | undefined>;

export interface ApiRoute {
  method: string;
  url: string;
  access: Access;
  /** The staff permission of an 'admin' route (every one declares it), or 'owner'. */
  permission?: RoutePermission;
}

const ROUTE_PERMISSIONS = new Set<string>([...PERMISSIONS, 'owner']);

const NO_RIGHTS: StaffRights = Object.freeze({ permissions: Object.freeze([]), role: null });

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API route with its declared access; the authorization matrix test walks it. */
    apiRoutes: ApiRoute[];
  }
  interface FastifyContextConfig {
    access?: Access;
    /**
     * The staff permission an 'admin' route needs; every admin route declares one (the site
     * refuses to start otherwise). The owner passes every check; 'owner' admits the
     * owner alone (roles and owners are the owner's to manage).
     */
    permission?: RoutePermission;
  }
  interface FastifyRequest {
    /**
     * The caller: set before the handler on 'user' and 'admin' routes (never null there); on
     * public routes null until optionalUser() looked it up. Read it with userOf()/optionalUser().
     */
    user: User | null;
    /** Set once the session was looked up for this request. */
    authState?: { token: string | null };
    /** The caller's staff rights, looked up with the session (none for guests and players). */
    rights: StaffRights | null;
  }
}

/** Where the root instance keeps the injected lookup; route plugins inherit it. */
const LOOKUP = Symbol('kubik.sessionLookup');

async function resolve(request: FastifyRequest): Promise<User | null> {
  if (request.authState) return request.user;
  const token = sessionTokenOf(request.headers);
  const lookup = (request.server as unknown as Record<symbol, SessionLookup | undefined>)[LOOKUP];
  const found = token && token.length <= 200 && lookup ? await lookup(token) : undefined;
  request.authState = { token };
  request.user = found?.user ?? null;
  request.rights = found?.rights ?? NO_RIGHTS;
  return request.user;
}

/**
 * The caller of a 'user' or 'admin' route, resolved before the handler ran. Throws on a public
 * route: a handler there that needs the caller uses optionalUser().
 */
export function userOf(request: FastifyRequest): User {
  if (!request.user)
    throw new Error(`userOf() on ${request.routeOptions.url ?? request.url}: the route is not declared access 'user' or 'admin'`);
  return request.user;
}

/** The caller's staff rights (the owner: all; staff: the role's; players: none); resolved with userOf(). */
export function rightsOf(request: FastifyRequest): StaffRights {
  return request.rights ?? NO_RIGHTS;
}

/** The caller on a public route, or null for a guest; looked up on first use only, so guests' requests never touch the sessions table. */
export function optionalUser(request: FastifyRequest): Promise<User | null> {
  return resolve(request);
}

/** Secure when the site is https: by PUBLIC_URL, or as a trusted proxy reports it. */
function secure(config: Readonly<Config>, request: FastifyRequest): boolean {
  return config.secureCookies || (!!config.trustProxy && request.protocol === 'https');
}

/** A private cookie's options (httpOnly, lax, secure on https) for `path`; maxAge in ms to set, none to clear. */
export function privateCookie(config: Readonly<Config>, request: FastifyRequest, path: string, maxAgeMs?: number) {
  return {
    path,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: secure(config, request),
    ...(maxAgeMs !== undefined && { maxAge: Math.floor(maxAgeMs / 1000) }),
  };
}

export function setSessionCookie(ctx: { config: Readonly<Config> }, request: FastifyRequest, reply: FastifyReply, token: string): void {
  const options = privateCookie(ctx.config, request, '/', ctx.config.sessionTtlMs);
  reply.setCookie(SESSION_COOKIE, token, options);
  reply.setCookie(SIGNED_IN_COOKIE, '1', { ...options, httpOnly: false });
}

export function deviceToken(request: FastifyRequest): string | undefined {
  return request.cookies[DEVICE_COOKIE] || undefined;
}

export function setDeviceCookie(ctx: { config: Readonly<Config> }, request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(DEVICE_COOKIE, token, privateCookie(ctx.config, request, '/', DEVICE_COOKIE_MAX_AGE_MS));
}

export function clearSessionCookie(ctx: { config: Readonly<Config> }, request: FastifyRequest, reply: FastifyReply): void {
  const options = privateCookie(ctx.config, request, '/');
  reply.clearCookie(SESSION_COOKIE, options);
  reply.clearCookie(SIGNED_IN_COOKIE, { ...options, httpOnly: false });
}

/**
 * Every /api route must say who may call it (`config: { access }`), and every admin route the
 * staff permission it needs: a route without a rule stops the site from starting, so nothing is
 * exposed by accident. The declared routes are kept in app.apiRoutes.
 */
function requireDeclaredAccess(app: FastifyInstance): void {
  app.decorate('apiRoutes', [] as ApiRoute[]);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs')) return;
    const access = route.config?.access;
    if (!access) throw new Error(`route ${String(route.method)} ${route.url} declares no config.access`);
    const permission = route.config?.permission;
    if (access === 'admin' && (!permission || !ROUTE_PERMISSIONS.has(permission)))
      throw new Error(`admin route ${String(route.method)} ${route.url} declares no known config.permission`);
    if (access !== 'admin' && permission)
      throw new Error(`route ${String(route.method)} ${route.url} declares a permission but is not access 'admin'`);
    for (const method of [route.method].flat())
      if (method !== 'HEAD') app.apiRoutes.push({ method, url: route.url, access, ...(permission ? { permission } : {}) });
  });
}

/**
 * Checks every route's declared access once, in onRequest, before the body is even read:
 * 'user' needs a live session (401, with 'Invalid token' when a token came but is no good, so
 * the client logs out), 'admin' the owner's or a staff member's whose role holds the route's
 * `config.permission` (403). The user is then on request.user, the rights on request.rights.
 */
export function registerAccessCheck(
  app: FastifyInstance,
  lookup: SessionLookup,
  gravitSecret?: string,
  adminGate?: (user: User) => Promise<void>,
): void {
  requireDeclaredAccess(app);
  app.decorate(LOOKUP, lookup);
  app.decorateRequest('user', null);
  app.decorateRequest('rights', null);
  const check = async (request: FastifyRequest, access: 'user' | 'admin') => {
    const user = await resolve(request);
    if (!user) throw request.authState?.token ? unauthorized('Invalid token', { code: 'invalid_token' }) : unauthorized();
    if (access === 'admin' && user.is_admin !== 1) {
      const need = request.routeOptions.config.permission;
      const held = request.rights?.permissions ?? [];
      if (held.length === 0) throw forbidden('Доступно только администраторам');
      if (!need || need === 'owner') throw forbidden('Это может сделать только владелец сайта', { code: 'owner_only' });
      if (!held.includes(need)) throw forbidden('Недостаточно прав для этого раздела');
    }
    // The owner may require administrators to use two-factor login (modules/security).
    if (access === 'admin' && adminGate) await adminGate(user);
  };
  // Synchronous for public routes, most of the traffic: no promise per request there.
  app.addHook('onRequest', (request, _reply, done) => {
    const access = request.routeOptions.config?.access;
    if (access === 'gravit') {
      try {
        requireBearerSecret(gravitSecret, request.headers.authorization);
      } catch (err) {
        return done(err as Error);
      }
      return done();
    }
    if (access !== 'user' && access !== 'admin') return done();
    check(request, access).then(() => done(), done);
  });
}
