import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { HttpError } from '../../lib/errors.ts';
import { PasswordsBusy } from '../../front-door/passwords.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';
import { unhyphenated } from '../../lib/yggdrasil/textures.ts';
import type { User } from '../users/users.repo.ts';
import { seenInGame } from '../users/users.ports.ts';
import { accountRefusal, JOIN_TTL_MS, normalizeIp, refusalText, tooManyTriesText, type GameAuth } from './game-auth.service.ts';
import * as repo from './game-auth.repo.ts';
import { GameLoginSettings } from './game-auth.settings.ts';
import { profileKeyRoutes, SERVICES_PREFIX } from './profile-keys.routes.ts';
import { revokeProfileKeys } from './profile-keys.repo.ts';
import {
  AuthenticateBody,
  AuthenticateResponse,
  CompleteProfile,
  HasJoinedQuery,
  JoinBody,
  Metadata,
  NamesBody,
  NoContent,
  ProfileParams,
  ProfileQuery,
  RefreshBody,
  RefreshResponse,
  SignoutBody,
  SimpleProfile,
  TokenBody,
  YggError,
} from './yggdrasil.schemas.ts';
import { YggdrasilError } from './yggdrasil.errors.ts';

export const YGGDRASIL_ROOT = '/api/yggdrasil';
export { YggdrasilError };

// The exact texts of the specification's error table: launchers match on them (HMCL localizes
// "Invalid credentials" and "Invalid token", and shows any other text as written).
const invalidToken = () => new YggdrasilError(403, 'ForbiddenOperationException', 'Invalid token.');
const invalidCredentials = () =>
  new YggdrasilError(403, 'ForbiddenOperationException', 'Invalid credentials. Invalid username or password.');
const profileAssigned = () => new YggdrasilError(400, 'IllegalArgumentException', 'Access token already has a profile assigned.');
const refused = (user: User) => new YggdrasilError(403, 'ForbiddenOperationException', refusalText(user));
/**
 * Not a verdict on the password («Invalid credentials» here made owners retype a right
 * one): too many tries lately, on the account or from the address, or too many password checks
 * waiting. authlib-injector's specification (and its reference suite) answers a refused
 * rate with 403 ForbiddenOperationException, which launchers handle; the text says what happened
 * instead of «Invalid credentials», and Retry-After says when to try again.
 */
const tooManyTries = (retryInMs: number) => {
  const s = Math.max(1, Math.ceil(retryInMs / 1000));
  return new YggdrasilError(403, 'ForbiddenOperationException', tooManyTriesText(retryInMs), s);
};

/** Names per request to api/profiles/minecraft (the specification asks for a limit of at least 2). */
export const NAMES_PER_QUERY = 10;

const errors = { 400: YggError, 403: YggError, 404: YggError, 413: YggError, 415: YggError, 429: YggError, 500: YggError };
const tags = ['Yggdrasil (authlib-injector)'];

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
};

/**
 * Errors of this API leave in its own shape, whatever raised them (a schema, the JSON parser,
 * the body limit), never in the site's { error: '<text>' }: clients tell failure by `error`.
 */
function registerYggdrasilErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof YggdrasilError) {
      if (err.retryAfterSec !== undefined) reply.header('retry-after', String(err.retryAfterSec));
      return reply.code(err.statusCode).send({ error: err.error, errorMessage: err.errorMessage });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issue = err.validation[0];
      const where = issue?.instancePath?.replace(/^\//, '').replaceAll('/', '.') || err.validationContext || 'body';
      return reply.code(400).send({ error: 'IllegalArgumentException', errorMessage: `Bad request: ${where} is missing or invalid.` });
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'yggdrasil: unhandled error');
    const reason = STATUS_TEXT[status] ?? (status === 500 ? 'Internal Server Error' : 'Bad Request');
    return reply.code(status).send({
      error: status === 400 ? 'IllegalArgumentException' : reason,
      errorMessage: status === 500 ? 'Internal server error.' : `${status} ${reason}`,
    });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Not Found', errorMessage: '404 Not Found' }));
  // The web app's static files answer every other GET at the root (and would answer our unknown
  // paths in the site's shape): unknown GETs under this prefix end here instead.
  app.get('/*', { config: { access: 'public' }, schema: { hide: true } }, (_request, reply) => reply.callNotFound());
}

const noContent = (reply: FastifyReply) => reply.code(204).send();

export function yggdrasilRoutes(ctx: AppContext, game: GameAuth): FastifyPluginAsyncZod {
  const simple = (user: User) => ({ id: game.profileId(user), name: user.username });
  const userObject = (user: User) => ({ id: game.profileId(user), properties: [{ name: 'preferredLanguage', value: 'ru' }] });

  async function complete(user: User, sign: boolean) {
    return { ...simple(user), properties: [await game.texturesProperty(user, sign)] };
  }

  /** A token good for validate and join: valid (not only refreshable), clientToken matching when sent. */
  async function validToken(accessToken: string, clientToken: string | null | undefined) {
    const found = await repo.findToken(ctx.db, 'yggdrasil', accessToken);
    if (!found || !game.isValid(found.token, found.user)) throw invalidToken();
    if (clientToken != null && found.token.client_token !== clientToken) throw invalidToken();
    return found;
  }

  /** Password check with the specification's per-account limit, and a per-address one. */
  async function login(username: string, password: string, ip: string, clientToken: string | null | undefined): Promise<User> {
    try {
      await ctx.limiter.hit(`ygg:login:ip:${addressKey(ip)}`, ctx.config.rateLimits.loginPerIp);
    } catch (err) {
      if (err instanceof HttpError && err.statusCode === 429) throw tooManyTries(Number(err.extra?.retry_after ?? 60) * 1000);
      throw err;
    }
    let result;
    try {
      result = await game.checkCredentials(username, password, Date.now(), null, { clientToken, ip });
    } catch (err) {
      if (err instanceof PasswordsBusy) throw tooManyTries(err.retryAfterSec * 1000);
      throw err;
    }
    if (!result.ok && result.reason === 'throttled') throw tooManyTries(result.retryInMs);
    // Ely.by's answer, which launchers that support two-factor login recognise: they then ask
    // for the code and send `password:code` (docs/game-login.md).
    if (!result.ok && result.reason === 'two_factor')
      throw new YggdrasilError(401, 'ForbiddenOperationException', 'Account protected with two factor auth.');
    if (!result.ok) throw invalidCredentials();
    return result.user;
  }

  return async (app) => {
    registerYggdrasilErrors(app);
    await app.register(profileKeyRoutes(ctx, game), { prefix: SERVICES_PREFIX });

    app.get('/', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Метаданные сервера Yggdrasil для authlib-injector (имя, ссылки, домены текстур, открытый ключ подписи)',
        response: { 200: Metadata, ...errors },
      },
      handler: async () => {
        const [key, settings] = await Promise.all([game.signingKey(), ctx.settings.get(GameLoginSettings)]);
        const site = new URL(ctx.config.publicUrl);
        return {
          meta: {
            serverName: settings.server_name,
            implementationName: 'kubik',
            implementationVersion: '1.0.0',
            links: { homepage: `${ctx.config.publicUrl}/`, register: `${ctx.config.publicUrl}/register` },
            'feature.non_email_login': true,
            // Games then fetch chat-signing keys from minecraftservices/player/certificates.
            'feature.enable_profile_key': true,
          },
          skinDomains: [site.hostname],
          signaturePublickey: key.publicPem,
        };
      },
    });

    app.post('/authserver/authenticate', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(
        ctx.limiter,
        (req) => `ygg:login:ip:${addressKey(req.ip)}`,
        (sec) => ({ error: 'ForbiddenOperationException', errorMessage: tooManyTries(sec * 1000).errorMessage }),
        403,
      ),
      schema: {
        tags,
        summary: 'Вход лаунчера: имя или почта и пароль → токен игры',
        body: AuthenticateBody,
        response: { 200: AuthenticateResponse, ...errors },
      },
      handler: async (req) => {
        const user = await login(req.body.username, req.body.password, req.ip, req.body.clientToken);
        if (accountRefusal(user)) throw refused(user);
        const clientToken = req.body.clientToken ?? unhyphenated(crypto.randomUUID());
        const { accessToken } = await game.issueToken('yggdrasil', user, clientToken);
        const profile = simple(user);
        return {
          accessToken,
          clientToken,
          availableProfiles: [profile],
          selectedProfile: profile,
          ...(req.body.requestUser ? { user: userObject(user) } : {}),
        };
      },
    });

    app.post('/authserver/refresh', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Новый токен игры взамен старого (старый перестаёт действовать)',
        body: RefreshBody,
        response: { 200: RefreshResponse, ...errors },
      },
      handler: async (req) => {
        const found = await repo.findToken(ctx.db, 'yggdrasil', req.body.accessToken);
        // A banned player's tokens end with the ban; one issued in a race still gets the reason.
        if (found && accountRefusal(found.user) === 'banned') throw refused(found.user);
        if (!found || !game.isRefreshable(found.token, found.user)) throw invalidToken();
        if (req.body.clientToken != null && found.token.client_token !== req.body.clientToken) throw invalidToken();
        // Every token is bound to the account's one profile from the start.
        if (req.body.selectedProfile) throw profileAssigned();
        const next = await game.replaceToken(found.token, found.user);
        if (!next) throw invalidToken();
        return {
          accessToken: next.accessToken,
          clientToken: found.token.client_token ?? '',
          selectedProfile: simple(found.user),
          ...(req.body.requestUser ? { user: userObject(found.user) } : {}),
        };
      },
    });

    app.post('/authserver/validate', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Проверка токена игры: 204, если он действителен',
        body: TokenBody,
        response: { 204: NoContent, ...errors },
      },
      handler: async (req, reply) => {
        await validToken(req.body.accessToken, req.body.clientToken);
        return noContent(reply);
      },
    });

    app.post('/authserver/invalidate', {
      config: { access: 'public' },
      schema: { tags, summary: 'Отзыв токена игры (всегда 204)', body: TokenBody, response: { 204: NoContent, ...errors } },
      handler: async (req, reply) => {
        await repo.deleteTokenBySecret(ctx.db, 'yggdrasil', req.body.accessToken);
        return noContent(reply);
      },
    });

    app.post('/authserver/signout', {
      config: { access: 'public' },
      schema: { tags, summary: 'Выход из всех лаунчеров по имени и паролю', body: SignoutBody, response: { 204: NoContent, ...errors } },
      handler: async (req, reply) => {
        const user = await login(req.body.username, req.body.password, req.ip, null);
        await repo.deleteTokensOf(ctx.db, user.id, 'yggdrasil');
        await revokeProfileKeys(ctx.db, user.id);
        return noContent(reply);
      },
    });

    app.post('/sessionserver/session/minecraft/join', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Клиент игры входит на сервер (запоминается на 30 секунд)',
        body: JoinBody,
        response: { 204: NoContent, ...errors },
      },
      handler: async (req, reply) => {
        const { user } = await validToken(req.body.accessToken, undefined);
        if (unhyphenated(req.body.selectedProfile) !== game.profileId(user)) throw invalidToken();
        const now = Date.now();
        await repo.recordJoin(
          ctx.db,
          { serverId: req.body.serverId, userId: user.id, kind: 'yggdrasil', ip: normalizeIp(req.ip), expiresAt: now + JOIN_TTL_MS },
          now,
        );
        return noContent(reply);
      },
    });

    app.get('/sessionserver/session/minecraft/hasJoined', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Игровой сервер проверяет вход игрока: профиль с подписанными текстурами или 204',
        querystring: HasJoinedQuery,
        response: { 200: CompleteProfile, 204: NoContent, ...errors },
      },
      handler: async (req, reply) => {
        const user = await repo.findUserByExactName(ctx.db, req.query.username);
        if (!user || accountRefusal(user)) return noContent(reply);
        const ip = req.query.ip === undefined ? undefined : normalizeIp(req.query.ip);
        const now = Date.now();
        if (!(await repo.consumeJoin(ctx.db, req.query.serverId, user.id, 'yggdrasil', ip, now))) return noContent(reply);
        // The game server let the player in: they are in game now («last seen» on the public profile).
        await seenInGame.run(ctx.db, [user.username], now).catch((err: unknown) => req.log.warn({ err }, 'last seen not recorded'));
        return complete(user, true);
      },
    });

    app.get('/sessionserver/session/minecraft/profile/:uuid', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Профиль игрока по UUID (без дефисов); подписи текстур — с ?unsigned=false',
        params: ProfileParams,
        querystring: ProfileQuery,
        response: { 200: CompleteProfile, 204: NoContent, ...errors },
      },
      handler: async (req, reply) => {
        const user = await repo.findUserByUuid(ctx.db, req.params.uuid);
        if (!user) return noContent(reply);
        return complete(user, req.query.unsigned === 'false');
      },
    });

    app.post('/api/profiles/minecraft', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: `Профили по именам (не больше ${NAMES_PER_QUERY} за запрос)`,
        body: NamesBody,
        response: { 200: SimpleProfile.array(), ...errors },
      },
      handler: async (req) => {
        const names = [...new Set(req.body.map((n) => n.toLowerCase()))];
        if (names.length > NAMES_PER_QUERY)
          throw new YggdrasilError(403, 'ForbiddenOperationException', `You can query up to ${NAMES_PER_QUERY} players in one request.`);
        return (await repo.findUsersByNames(ctx.db, names)).map(simple);
      },
    });
  };
}
