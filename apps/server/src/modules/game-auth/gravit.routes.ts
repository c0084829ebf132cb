import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { HttpError } from '../../lib/errors.ts';
import { hashToken } from '../../lib/tokens.ts';
import { hyphenated, unhyphenated } from '../../lib/yggdrasil/textures.ts';
import type { User } from '../users/users.repo.ts';
import { PasswordsBusy } from '../../front-door/passwords.ts';
import {
  accountRefusal,
  JOIN_TTL_MS,
  normalizeIp,
  refusalText,
  textureUrl,
  tooManyTriesText,
  type CredentialsResult,
  type GameAuth,
} from './game-auth.service.ts';
import * as repo from './game-auth.repo.ts';

export const GRAVIT_ROOT = '/api/gravit';

// GravitLauncher's `myhttp` auth core (LaunchServer 5.5+, module MyHttp_module): the
// LaunchServer, not the player, calls these with `Authorization: Bearer <bearerToken>`, parses
// every body as JSON (an empty or non-JSON error body breaks it), follows no redirects, and maps
// answers onto Java records: UUIDs with dashes, lists never null.

/** Error codes the core reads from `code` (MyHttpAuthCoreProvider). */
const CODE_TOKEN_EXPIRED = 1001;
const CODE_INVALID_REFRESH_TOKEN = 1002;

export class GravitError extends Error {
  constructor(
    readonly statusCode: number,
    readonly error: string,
    readonly code = 0,
  ) {
    super(error);
  }
}

/** `error` strings the launcher translates (runtime.request.<error>); others are shown as written. */
export const GRAVIT_TEXTS = {
  wrongPassword: 'auth.wrongpassword',
  userNotFound: 'auth.usernotfound',
  invalidToken: 'auth.invalidtoken',
  expiredToken: 'auth.expiretoken',
  /** The launcher then asks for the authenticator's code and repeats the login with `totpCode`. */
  require2fa: 'auth.require2fa',
  wrongCode: 'Неверный код двухфакторной защиты: введите код, который приложение показывает сейчас',
  joinRefused: 'Вход в игру не подтверждён: перезапустите лаунчер и войдите снова',
  notJoined: 'Игрок не проходил вход на этот сервер через лаунчер',
} as const;

export const GravitErrorBody = z.object({ error: z.string(), code: z.number().int() });
const Texture = z.object({ url: z.string(), digest: z.string(), metadata: z.record(z.string(), z.string()).optional() });
const User = z.object({
  username: z.string(),
  uuid: z.string(),
  permissions: z.array(z.string()),
  roles: z.array(z.string()),
  assets: z.object({ SKIN: Texture.optional(), CAPE: Texture.optional() }),
});
const UserSession = z.object({
  id: z.string(),
  accessToken: z.string(),
  refreshToken: z.string().optional(),
  expire: z.number().int(),
  user: User.optional(),
});

/** Minecraft's hex digest, opaque to the site: printable ASCII only. */
export const SERVER_ID = z.string().regex(/^[\x21-\x7e]{1,128}$/, 'serverID');

const errors = {
  400: GravitErrorBody,
  401: GravitErrorBody,
  403: GravitErrorBody,
  404: GravitErrorBody,
  413: GravitErrorBody,
  415: GravitErrorBody,
  503: GravitErrorBody,
};
const tags = ['GravitLauncher (myhttp)'];

/** The Java records' field is `serverID`; a hand-written caller may say `serverId`. */
const serverIdOf = (b: { serverID?: string | null | undefined; serverId?: string | null | undefined }) => b.serverID ?? b.serverId ?? null;
const ServerIdFields = { serverID: SERVER_ID.nullish(), serverId: SERVER_ID.nullish() };

/**
 * A literal placeholder means the LaunchServer did not fill it: the module's getUserByUUID
 * sends the userByUsername address with only %uuid% replaced (MyHttpAuthCoreProvider), so
 * one address carrying both placeholders serves both lookups.
 */
const filled = (value: string | undefined, placeholder: string) => (value && value !== placeholder ? value : undefined);

/**
 * The player's login and password, checked for the LaunchServer. A refused rate (the account's
 * interval or delay, or a long wait for a password check) says how long to wait: the launcher
 * shows the text as written, where «auth.wrongpassword» made players retype a right password.
 * The LaunchServer asks for all its players from one address: they take their turns as one network.
 */
export async function gravitCredentials(
  game: GameAuth,
  login: string,
  password: string,
  launchServer: string,
  totpCode?: string | null,
): Promise<CredentialsResult> {
  let result: CredentialsResult;
  try {
    result = await game.checkCredentials(login, password, Date.now(), totpCode, { ip: launchServer });
  } catch (err) {
    if (err instanceof PasswordsBusy) throw new GravitError(400, tooManyTriesText(err.retryAfterSec * 1000));
    throw err;
  }
  if (!result.ok && result.reason === 'throttled') throw new GravitError(400, tooManyTriesText(result.retryInMs));
  return result;
}

export function registerGravitErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof GravitError) return reply.code(err.statusCode).send({ error: err.error, code: err.code });
    if (err instanceof HttpError) return reply.code(err.statusCode).send({ error: err.message, code: 0 });
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issue = err.validation[0];
      const field = issue?.instancePath?.replace(/^\//, '').replaceAll('/', '.');
      return reply.code(400).send({ error: `Некорректный запрос${field ? `: поле «${field}»` : ''}`, code: 0 });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'gravit: unhandled error');
    return reply.code(status).send({ error: status === 500 ? 'Внутренняя ошибка сервера' : 'Некорректный запрос', code: 0 });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Не найдено', code: 0 }));
}

/** Unknown GETs under the prefix get this plugin's 404 (the web app's static files would answer them at the root). */
export function registerUnknownGets(app: FastifyInstance, access: 'public' | 'gravit'): void {
  app.get('/*', { config: { access }, schema: { hide: true } }, (_request, reply) => reply.callNotFound());
}

export function gravitRoutes(ctx: AppContext, game: GameAuth): FastifyPluginAsyncZod {
  async function user(u: User) {
    const t = await game.textures(u);
    const assets: { SKIN?: z.infer<typeof Texture>; CAPE?: z.infer<typeof Texture> } = {};
    // The digest is the hash that names the file, so the game's texture cache agrees with the URL.
    if (t.skin)
      assets.SKIN = { url: textureUrl(ctx, t.skin.hash), digest: t.skin.hash, ...(t.skin.slim ? { metadata: { model: 'slim' } } : {}) };
    if (t.cape) assets.CAPE = { url: textureUrl(ctx, t.cape.hash), digest: t.cape.hash };
    return { username: u.username, uuid: hyphenated(repo.profileUuid(u)), permissions: [], roles: [], assets };
  }

  const sessionId = (accessToken: string) => hashToken(accessToken).slice(0, 32);
  const secondsLeft = (expiresAt: number) => Math.max(1, Math.floor((expiresAt - Date.now()) / 1000));

  return async (app) => {
    registerGravitErrors(app);
    registerUnknownGets(app, 'gravit');
    const access = { access: 'gravit' as const };

    app.get('/user', {
      config: access,
      schema: {
        tags,
        summary: 'Игрок по имени (?username=) или UUID (?uuid=, с дефисами); 404, если нет',
        querystring: z.object({ username: z.string().max(64).optional(), uuid: z.string().max(64).optional() }),
        response: { 200: User, ...errors },
      },
      handler: async (req) => {
        const username = filled(req.query.username, '%username%');
        const uuid = filled(req.query.uuid, '%uuid%');
        let found: User | undefined;
        if (uuid && /^[0-9a-f]{32}$/i.test(unhyphenated(uuid))) found = await repo.findUserByUuid(ctx.db, uuid);
        else if (username) found = (await repo.findUsersByNames(ctx.db, [username]))[0];
        if (!found) throw new GravitError(404, GRAVIT_TEXTS.userNotFound);
        return user(found);
      },
    });

    app.post('/authorize', {
      config: access,
      schema: {
        tags,
        summary: 'Вход игрока в лаунчер: логин (имя или почта) и пароль → сессия',
        body: z.object({
          login: z.string().min(1).max(254),
          password: z.string().min(1).max(1024),
          totpCode: z.string().max(16).nullish(),
        }),
        response: { 200: UserSession, ...errors },
      },
      handler: async (req) => {
        const result = await gravitCredentials(game, req.body.login, req.body.password, req.ip, req.body.totpCode);
        if (!result.ok) {
          if (result.reason === 'two_factor') throw new GravitError(400, GRAVIT_TEXTS.require2fa);
          if (result.reason === 'bad_code') throw new GravitError(400, GRAVIT_TEXTS.wrongCode);
          throw new GravitError(400, result.reason === 'unknown' ? GRAVIT_TEXTS.userNotFound : GRAVIT_TEXTS.wrongPassword);
        }
        if (accountRefusal(result.user)) throw new GravitError(400, refusalText(result.user));
        const issued = await game.issueToken('gravit', result.user, null);
        return {
          id: sessionId(issued.accessToken),
          accessToken: issued.accessToken,
          refreshToken: issued.refreshToken!,
          expire: secondsLeft(issued.expiresAt),
          user: await user(result.user),
        };
      },
    });

    app.post('/user/by-token', {
      config: access,
      schema: {
        tags,
        summary: 'Сессия по токену доступа; код 1001 — токен истёк (лаунчер обновит его)',
        body: z.object({ accessToken: z.string().min(1).max(512) }),
        response: { 200: UserSession, ...errors },
      },
      handler: async (req) => {
        const found = await repo.findToken(ctx.db, 'gravit', req.body.accessToken);
        if (!found || !game.isRefreshable(found.token, found.user)) throw new GravitError(400, GRAVIT_TEXTS.invalidToken);
        if (!game.isValid(found.token, found.user)) throw new GravitError(400, GRAVIT_TEXTS.expiredToken, CODE_TOKEN_EXPIRED);
        return {
          id: sessionId(req.body.accessToken),
          accessToken: req.body.accessToken,
          expire: secondsLeft(found.token.expires_at),
          user: await user(found.user),
        };
      },
    });

    app.post('/refresh', {
      config: access,
      schema: {
        tags,
        summary: 'Новые токены по токену обновления (старые перестают действовать); код 1002 — токен неверный',
        body: z.object({ refreshToken: z.string().min(1).max(512) }),
        response: { 200: UserSession, ...errors },
      },
      handler: async (req) => {
        const found = await repo.findTokenByRefresh(ctx.db, req.body.refreshToken);
        if (!found || !game.isRefreshable(found.token, found.user))
          throw new GravitError(400, GRAVIT_TEXTS.invalidToken, CODE_INVALID_REFRESH_TOKEN);
        const next = await game.replaceToken(found.token, found.user);
        if (!next) throw new GravitError(400, GRAVIT_TEXTS.invalidToken, CODE_INVALID_REFRESH_TOKEN);
        return {
          id: sessionId(next.accessToken),
          accessToken: next.accessToken,
          refreshToken: next.refreshToken!,
          expire: secondsLeft(next.expiresAt),
          user: await user(found.user),
        };
      },
    });

    app.post('/join', {
      config: access,
      schema: {
        tags,
        summary: 'Клиент игры входит на сервер (username, uuid, accessToken, serverID)',
        body: z.object({
          username: z.string().min(1).max(64),
          uuid: z.string().max(64).nullish(),
          accessToken: z.string().min(1).max(512),
          ...ServerIdFields,
        }),
        response: { 200: z.object({}), ...errors },
      },
      handler: async (req) => {
        const serverId = serverIdOf(req.body);
        if (!serverId) throw new GravitError(400, 'Некорректный запрос: поле «serverID»');
        const found = await repo.findToken(ctx.db, 'gravit', req.body.accessToken);
        if (!found || !game.isValid(found.token, found.user)) throw new GravitError(400, GRAVIT_TEXTS.joinRefused);
        if (req.body.username !== found.user.username) throw new GravitError(400, GRAVIT_TEXTS.joinRefused);
        if (req.body.uuid && unhyphenated(req.body.uuid) !== repo.profileUuid(found.user))
          throw new GravitError(400, GRAVIT_TEXTS.joinRefused);
        const now = Date.now();
        await repo.recordJoin(
          ctx.db,
          { serverId, userId: found.user.id, kind: 'gravit', ip: normalizeIp(req.ip), expiresAt: now + JOIN_TTL_MS },
          now,
        );
        return {};
      },
    });

    app.post('/check', {
      config: access,
      schema: {
        tags,
        summary: 'Игровой сервер проверяет вход игрока (username, serverID) → игрок со скином и плащом',
        body: z.object({ username: z.string().min(1).max(64), ...ServerIdFields }),
        response: { 200: User, ...errors },
      },
      handler: async (req) => {
        const serverId = serverIdOf(req.body);
        if (!serverId) throw new GravitError(400, 'Некорректный запрос: поле «serverID»');
        const found = await repo.findUserByExactName(ctx.db, req.body.username);
        if (!found || accountRefusal(found) || !(await repo.consumeJoin(ctx.db, serverId, found.id, 'gravit', undefined, Date.now()))) {
          throw new GravitError(400, GRAVIT_TEXTS.notJoined);
        }
        return user(found);
      },
    });
  };
}
