import fastifyMultipart from '@fastify/multipart';
import {
  HeadQuery,
  PlayerParams,
  SKIN_MAX_BYTES,
  SKIN_TEXTS,
  SkinImageQuery,
  SkinInfo,
  SkinModel,
  SkinModelBody,
  SkinUploadResponse,
} from '@kubik/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies, HttpError } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { readUploadForm } from '../../plugins/upload-form.ts';
import { skinTextures } from '../users/users.ports.ts';
import { skinTextureSource } from './skins.repo.ts';
import { createSkinService, type SkinImage } from './skins.service.ts';

const tags = ['Скины'];
const png = (description: string) => ({ description, content: { 'image/png': { schema: z.string().meta({ format: 'binary' }) } } });
const notModified = { 304: z.null().meta({ description: 'Не изменилось (If-None-Match совпал с ETag)' }) };

/** Valid player names that are also the first segment of another GET /api/user/<word>/:param route. */
const SHADOWED_NAMES = ['confirm'];

/** Room for the multipart envelope around a file of the largest allowed size. */
const UPLOAD_BODY_MAX = SKIN_MAX_BYTES + 16 * 1024;

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === etag || tag === '*';
  });
}

/**
 * Images are named by the skin's version: with the current `?v=` the answer never changes and is
 * cached for a year; without it (or with an old one) the browser revalidates every time, and an
 * unchanged skin costs a 304 with no body. A new skin gets a new version and a new ETag at once.
 */
async function sendImage(
  request: FastifyRequest,
  reply: FastifyReply,
  image: SkinImage,
  v: string | undefined,
  scope: 'private' | 'public',
) {
  reply.header('etag', image.etag);
  reply.header('cache-control', v === image.version ? `${scope}, max-age=31536000, immutable` : `${scope}, no-cache`);
  if (scope === 'private') reply.header('vary', 'Cookie, Authorization');
  if (etagMatches(request.headers['if-none-match'], image.etag)) return reply.code(304).send();
  return reply.type('image/png').send(await image.body());
}

export function skinsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  skinTextures.provide(skinTextureSource);
  const skins = createSkinService(ctx);
  return async (app) => {
    // Registered here, not app-wide: only the skin upload takes files, so no other route parses multipart.
    await app.register(fastifyMultipart, {
      limits: { fileSize: SKIN_MAX_BYTES, files: 1, fields: 1, parts: 2, fieldNameSize: 32, fieldSize: 16, headerPairs: 20 },
      throwFileSizeLimit: true,
    });

    app.post('/api/user/skin', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Загрузить скин: multipart/form-data, файл PNG в поле «skin» (64×64 или 64×32, HD до 512, не больше 256 КБ) и, по желанию, «model»: default или slim (иначе модель определяется по скину)',
        consumes: ['multipart/form-data'],
        body: z.object({ skin: z.string().meta({ format: 'binary' }), model: SkinModel.optional() }),
        response: { 200: SkinUploadResponse, ...errorReplies(400, 401, 413, 415, 429) },
      },
      // The route has no params or query, and its multipart body is read part by part in the
      // handler: the body schema above only documents the form.
      validatorCompiler: () => (value) => ({ value }),
      onRequest: async (request) => {
        if (Number(request.headers['content-length'] ?? 0) > UPLOAD_BODY_MAX)
          throw new HttpError(413, SKIN_TEXTS.tooBig, { code: 'file_too_large', field: 'skin' });
      },
      handler: async (req) => {
        const user = userOf(req);
        await skins.admitUpload(user);
        const upload = await readUploadForm(req, 'skin', ['model'], SKIN_TEXTS);
        return { ...(await skins.upload(user, upload.file, upload.fields.model)), message: SKIN_TEXTS.uploaded };
      },
    });

    app.get('/api/user/skin', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Скин текущего пользователя: модель, размер, версия и адреса картинок',
        response: { 200: SkinInfo, ...errorReplies(401) },
      },
      handler: async (req) => skins.ownInfo(userOf(req)),
    });

    app.put('/api/user/skin/model', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Сменить модель рук своего скина (default или slim)',
        body: SkinModelBody,
        response: { 200: SkinInfo, ...errorReplies(400, 401, 409) },
      },
      handler: async (req) => skins.setModel(userOf(req), req.body.model),
    });

    app.get('/api/user/skin.png', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Файл скина текущего пользователя (или стандартный скин сайта). С ?v=<версия> кэшируется навсегда.',
        querystring: SkinImageQuery,
        response: { 200: png('PNG скина'), ...notModified, ...errorReplies(400, 401) },
      },
      handler: async (req, reply) => sendImage(req, reply, await skins.ownImage(userOf(req), 'skin', 0), req.query.v, 'private'),
    });

    app.get('/api/user/head', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Голова текущего пользователя для аватара: лицо со слоем шапки, size×size пикселей (8–512, по умолчанию 64)',
        querystring: HeadQuery,
        response: { 200: png('PNG головы'), ...notModified, ...errorReplies(400, 401) },
      },
      handler: async (req, reply) =>
        sendImage(req, reply, await skins.ownImage(userOf(req), 'head', req.query.size), req.query.v, 'private'),
    });

    const playerSchemas = {
      info: {
        tags,
        summary: 'Скин игрока по имени: модель, размер, версия и адреса картинок',
        response: { 200: SkinInfo, ...errorReplies(400, 404) },
      },
      file: {
        tags,
        summary: 'Файл скина игрока по имени',
        querystring: SkinImageQuery,
        response: { 200: png('PNG скина'), ...notModified, ...errorReplies(400, 404) },
      },
      head: {
        tags,
        summary: 'Голова игрока по имени (для списков и комментариев), size×size пикселей',
        querystring: HeadQuery,
        response: { 200: png('PNG головы'), ...notModified, ...errorReplies(400, 404) },
      },
    };

    app.get('/api/user/:username/skin', {
      config: { access: 'public' },
      schema: { ...playerSchemas.info, params: PlayerParams },
      handler: async (req) => skins.playerInfo(req.params.username),
    });
    app.get('/api/user/:username/skin.png', {
      config: { access: 'public' },
      schema: { ...playerSchemas.file, params: PlayerParams },
      handler: async (req, reply) => sendImage(req, reply, await skins.playerImage(req.params.username, 'skin', 0), req.query.v, 'public'),
    });
    app.get('/api/user/:username/head', {
      config: { access: 'public' },
      schema: { ...playerSchemas.head, params: PlayerParams },
      handler: async (req, reply) =>
        sendImage(req, reply, await skins.playerImage(req.params.username, 'head', req.query.size), req.query.v, 'public'),
    });

    // Static segments win over parameters, so the e-mail link route GET /api/user/confirm/:token
    // would answer /api/user/confirm/head for a player named "confirm". Such names get the same
    // three routes spelled out (hidden from the docs); add any new /api/user/<word>/:x GET route here.
    for (const name of SHADOWED_NAMES) {
      app.get(`/api/user/${name}/skin`, {
        config: { access: 'public' },
        schema: { ...playerSchemas.info, hide: true },
        handler: async () => skins.playerInfo(name),
      });
      app.get(`/api/user/${name}/skin.png`, {
        config: { access: 'public' },
        schema: { ...playerSchemas.file, hide: true },
        handler: async (req, reply) => sendImage(req, reply, await skins.playerImage(name, 'skin', 0), req.query.v, 'public'),
      });
      app.get(`/api/user/${name}/head`, {
        config: { access: 'public' },
        schema: { ...playerSchemas.head, hide: true },
        handler: async (req, reply) => sendImage(req, reply, await skins.playerImage(name, 'head', req.query.size), req.query.v, 'public'),
      });
    }
  };
}
