import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { requireBearerSecret } from '../lib/bearer-secret.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
import { hashToken } from '../lib/tokens.ts';
import { findSessionUser, type UserRow } from '../modules/accounts/accounts.repo.ts';

export const SESSION_COOKIE = 'kubik_session';

/**
 * Who may call a route; every /api route declares it in `config.access` (see app.ts).
 * 'gravit': only GravitLauncher's LaunchServer, by the bearer secret GRAVIT_SECRET; a site
 * session counts for nothing there.
 */
export type Access = 'public' | 'user' | 'admin' | 'gravit';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** Resolved lazily by currentUser(), so public routes never touch the sessions table. */
    authState?: { token: string | null; user: UserRow | null };
  }
}

/** The session token from the cookie, or from `Authorization: Bearer` (the launcher). */
export function sessionToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim() || null;
  return request.cookies[SESSION_COOKIE] ?? null;
}

export async function currentUser(ctx: AppContext, request: FastifyRequest): Promise<UserRow | null> {
  if (request.authState) return request.authState.user;
  const token = sessionToken(request);
  let user: UserRow | null = null;
  if (token && token.length <= 200) {
    // Keyed by the token's hash: the cache holds no usable secret.
    const found = await ctx.userCache.get(`session:${hashToken(token)}`, async () => {
        const session = await findSessionUser(ctx.db, token);
        // Shared by every request of this session while cached: nobody may change it in place.
        return session && { user: Object.freeze(session.user), expiresAt: session.expiresAt };
      }, (s) => s.expiresAt);
    user = found?.user ?? null;
  }
  request.authState = { token, user };
  return user;
}

/** Secure when the site is https: by PUBLIC_URL, or as a trusted proxy reports it. */
function secure(ctx: AppContext, request: FastifyRequest): boolean {
  return ctx.config.secureCookies || (ctx.config.trustProxy && request.protocol === 'https');
}

export function setSessionCookie(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secure(ctx, request),
    maxAge: Math.floor(ctx.config.sessionTtlMs / 1000),
  });
}

export function clearSessionCookie(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: secure(ctx, request) });
}

/** A logged-in user, or 401: 'Invalid token' when a token came but is no good (the client logs out). */
export async function requireUser(ctx: AppContext, request: FastifyRequest): Promise<UserRow> {
  const user = await currentUser(ctx, request);
  if (user) return user;
  throw unauthorized(request.authState?.token ? 'Invalid token' : 'Войдите в аккаунт');
}

export async function requireAdmin(ctx: AppContext, request: FastifyRequest): Promise<UserRow> {
  const user = await requireUser(ctx, request);
  if (user.is_admin !== 1) throw forbidden('Доступно только администраторам');
  return user;
}

/** Enforces a route's declared access before its body is even parsed. */
export async function enforceAccess(ctx: AppContext, request: FastifyRequest): Promise<void> {
  const access = request.routeOptions.config?.access;
  if (access === 'user') await requireUser(ctx, request);
  else if (access === 'admin') await requireAdmin(ctx, request);
  else if (access === 'gravit') requireBearerSecret(ctx.config.gravitSecret, request.headers.authorization);
}
