import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { hashToken } from '../../lib/tokens.ts';
import { hyphenated, unhyphenated } from '../../lib/yggdrasil/textures.ts';
import type { User } from '../users/users.repo.ts';
import { accountRefusal, JOIN_TTL_MS, normalizeIp, refusalText, textureUrl, type GameAuth } from './game-auth.service.ts';
import * as repo from './game-auth.repo.ts';
import { GravitError, GravitErrorBody, GRAVIT_TEXTS, gravitCredentials, registerGravitErrors, SERVER_ID } from './gravit.routes.ts';

export const GRAVIT_LEGACY_ROOT = '/api/gravit/v5';
/** LaunchServer 5.2–5.4 sends only the plain password, so the player types the code after it. */
const LEGACY_2FA_TEXT = 'Включена двухфакторная защита: в поле пароля введите пароль, двоеточие и код из приложения (пароль:123456)';

// LaunchServer 5.2–5.4's built-in `"type": "http"` core (HttpAuthCoreProvider, removed in 5.5).
// Its calls differ from myhttp's: the user lookups and the refresh come with no Authorization at
// all, the session lookup with the player's own access token as the bearer, and only authorize,
// joinServer and checkServer with the shared secret. Answers are Gson-mapped classes:
// permissions an object {perms, roles}, texture digests byte arrays (URL-safe base64), times in
// milliseconds, and an expired token told by the error text "auth.expiretoken".

const Texture = z.object({ url: z.string(), digest: z.string(), metadata: z.record(z.string(), z.string()).optional() });
const HttpUser = z.object({
  username: z.string(),
  uuid: z.string(),
  permissions: z.object({ perms: z.array(z.string()), roles: z.array(z.string()) }),
  assets: z.object({ SKIN: Texture.optional(), CAPE: Texture.optional() }),
  properties: z.record(z.string(), z.string()),
});
const HttpUserSession = z.object({ id: z.string(), user: HttpUser, expireIn: z.number().int() });
const AuthReport = z.object({
  minecraftAccessToken: z.string(),
  oauthAccessToken: z.string(),
  oauthRefreshToken: z.string(),
  oauthExpire: z.number().int(),
  session: HttpUserSession,
});

const errors = {
  400: GravitErrorBody,
  401: GravitErrorBody,
  404: GravitErrorBody,
  413: GravitErrorBody,
  415: GravitErrorBody,
  503: GravitErrorBody,
};
const tags = ['GravitLauncher 5.2–5.4 (http)'];
const Context = z
  .object({
    login: z.string().max(254).nullish(),
    profileName: z.string().max(64).nullish(),
    ip: z.string().max(64).nullish(),
    authType: z.string().max(32).nullish(),
  })
  .nullish();

/** Java's Base64.getUrlEncoder() of the digest's bytes, as Gson writes byte[] for the launcher. */
const digestBytes = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');

export function gravitLegacyRoutes(ctx: AppContext, game: GameAuth): FastifyPluginAsyncZod {
  async function httpUser(u: User) {
    const t = await game.textures(u);
    const assets: { SKIN?: z.infer<typeof Texture>; CAPE?: z.infer<typeof Texture> } = {};
    if (t.skin)
      assets.SKIN = {
        url: textureUrl(ctx, t.skin.hash),
        digest: digestBytes(t.skin.hash),
        ...(t.skin.slim ? { metadata: { model: 'slim' } } : {}),
      };
    if (t.cape) assets.CAPE = { url: textureUrl(ctx, t.cape.hash), digest: digestBytes(t.cape.hash) };
    return { username: u.username, uuid: hyphenated(repo.profileUuid(u)), permissions: { perms: [], roles: [] }, assets, properties: {} };
  }
  const sessionId = (accessToken: string) => hashToken(accessToken).slice(0, 32);

  async function report(u: User, issued: { accessToken: string; refreshToken: string | null; expiresAt: number }) {
    const expireIn = Math.max(1000, issued.expiresAt - Date.now());
    return {
      minecraftAccessToken: issued.accessToken,
      oauthAccessToken: issued.accessToken,
      oauthRefreshToken: issued.refreshToken!,
      oauthExpire: expireIn,
      session: { id: sessionId(issued.accessToken), user: await httpUser(u), expireIn },
    };
  }

  const notFound = () => new GravitError(404, GRAVIT_TEXTS.userNotFound);

  return async (app) => {
    registerGravitErrors(app);

    // Lookups without Authorization (the core sends none): only what the public skin pages show.
    app.get('/user/name/:username', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Игрок по имени (getUserByUsernameUrl)',
        params: z.object({ username: z.string().max(64) }),
        response: { 200: HttpUser, ...errors },
      },
      handler: async (req) => {
        const u = (await repo.findUsersByNames(ctx.db, [req.params.username]))[0];
        if (!u) throw notFound();
        return httpUser(u);
      },
    });

    app.get('/user/uuid/:uuid', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Игрок по UUID с дефисами (getUserByUUIDUrl)',
        params: z.object({ uuid: z.string().max(64) }),
        response: { 200: HttpUser, ...errors },
      },
      handler: async (req) => {
        const u = /^[0-9a-f]{32}$/i.test(unhyphenated(req.params.uuid)) ? await repo.findUserByUuid(ctx.db, req.params.uuid) : undefined;
        if (!u) throw notFound();
        return httpUser(u);
      },
    });

    app.get('/auth/current', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Сессия по токену игрока в Authorization: Bearer (getUserByTokenUrl)',
        response: { 200: HttpUserSession, ...errors },
      },
      handler: async (req) => {
        const header = req.headers.authorization ?? '';
        const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
        const found = token ? await repo.findToken(ctx.db, 'gravit', token) : undefined;
        if (!found || !game.isRefreshable(found.token, found.user)) throw new GravitError(400, GRAVIT_TEXTS.invalidToken);
        if (!game.isValid(found.token, found.user)) throw new GravitError(400, GRAVIT_TEXTS.expiredToken);
        return { id: sessionId(token), user: await httpUser(found.user), expireIn: Math.max(1000, found.token.expires_at - Date.now()) };
      },
    });

    app.post('/auth/refresh', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Новые токены по токену обновления (refreshTokenUrl)',
        body: z.object({ refreshToken: z.string().min(1).max(512), context: Context }),
        response: { 200: AuthReport, ...errors },
      },
      handler: async (req) => {
        const found = await repo.findTokenByRefresh(ctx.db, req.body.refreshToken);
        if (!found || !game.isRefreshable(found.token, found.user)) throw new GravitError(400, GRAVIT_TEXTS.invalidToken);
        const next = await game.replaceToken(found.token, found.user);
        if (!next) throw new GravitError(400, GRAVIT_TEXTS.invalidToken);
        return report(found.user, next);
      },
    });

    app.post('/auth/authorize', {
      config: { access: 'gravit' },
      schema: {
        tags,
        summary: 'Вход игрока в лаунчер (authorizeUrl)',
        body: z.object({
          login: z.string().min(1).max(254),
          context: Context,
          password: z.object({
            type: z.literal('plain', { error: 'Поддерживается только вход по паролю' }),
            password: z.string().min(1).max(1024),
          }),
          minecraftAccess: z.boolean().nullish(),
        }),
        response: { 200: AuthReport, ...errors },
      },
      handler: async (req) => {
        const result = await gravitCredentials(game, req.body.login, req.body.password.password, req.ip);
        if (!result.ok) {
          // This core sends plain passwords only: the code goes after the password with a colon.
          if (result.reason === 'two_factor') throw new GravitError(400, LEGACY_2FA_TEXT);
          if (result.reason === 'bad_code') throw new GravitError(400, GRAVIT_TEXTS.wrongCode);
          throw new GravitError(400, result.reason === 'unknown' ? GRAVIT_TEXTS.userNotFound : GRAVIT_TEXTS.wrongPassword);
        }
        if (accountRefusal(result.user)) throw new GravitError(400, refusalText(result.user));
        return report(result.user, await game.issueToken('gravit', result.user, null));
      },
    });

    app.post('/auth/joinServer', {
      config: { access: 'gravit' },
      schema: {
        tags,
        summary: 'Клиент игры входит на сервер (joinServerUrl)',
        body: z.object({ username: z.string().min(1).max(64), accessToken: z.string().min(1).max(512), serverId: SERVER_ID }),
        response: { 200: z.object({}), ...errors },
      },
      handler: async (req) => {
        const found = await repo.findToken(ctx.db, 'gravit', req.body.accessToken);
        if (!found || !game.isValid(found.token, found.user) || found.user.username !== req.body.username)
          throw new GravitError(400, GRAVIT_TEXTS.joinRefused);
        const now = Date.now();
        await repo.recordJoin(
          ctx.db,
          { serverId: req.body.serverId, userId: found.user.id, kind: 'gravit', ip: normalizeIp(req.ip), expiresAt: now + JOIN_TTL_MS },
          now,
        );
        return {};
      },
    });

    app.post('/auth/checkServer', {
      config: { access: 'gravit' },
      schema: {
        tags,
        summary: 'Игровой сервер проверяет вход игрока (checkServerUrl)',
        body: z.object({ username: z.string().min(1).max(64), serverId: SERVER_ID }),
        response: { 200: HttpUser, ...errors },
      },
      handler: async (req) => {
        const u = await repo.findUserByExactName(ctx.db, req.body.username);
        if (!u || accountRefusal(u) || !(await repo.consumeJoin(ctx.db, req.body.serverId, u.id, 'gravit', undefined, Date.now())))
          throw new GravitError(400, GRAVIT_TEXTS.notJoined);
        return httpUser(u);
      },
    });
  };
}
