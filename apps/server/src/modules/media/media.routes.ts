import fastifyMultipart from '@fastify/multipart';
import { MEDIA_MAX_BYTES, MEDIA_TEXTS, MediaHashParams, MediaList, MediaUploadResponse, MessageResponse } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies, HttpError } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { readUploadForm } from '../../plugins/upload-form.ts';
import { createMediaService, MEDIA_MIME } from './media.service.ts';

const tags = ['Картинки'];
/** Room for the multipart envelope around a file of the largest allowed size. */
const UPLOAD_BODY_MAX = MEDIA_MAX_BYTES + 16 * 1024;
const FILE_NAME = /^([0-9a-f]{64})\.(png|jpg|webp|gif)$/;

export function mediaRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const media = createMediaService(ctx);
  return async (app) => {
    // Only this plugin's routes parse multipart, with the media limits.
    await app.register(fastifyMultipart, {
      limits: { fileSize: MEDIA_MAX_BYTES, files: 1, fields: 0, parts: 1, fieldNameSize: 32, headerPairs: 20 },
      throwFileSizeLimit: true,
    });

    app.post('/api/admin/media', {
      config: { access: 'admin', permission: 'pages' },
      schema: {
        tags,
        summary:
          'Загрузить картинку: multipart/form-data, файл в поле «file» (PNG, JPEG, WebP или GIF; до 8 МБ и 4096×4096). Файл кодируется заново без метаданных; ответ — адрес /media/<хэш>.<тип>',
        consumes: ['multipart/form-data'],
        body: z.object({ file: z.string().meta({ format: 'binary' }) }),
        response: { 200: MediaUploadResponse, ...errorReplies(400, 401, 403, 413, 415) },
      },
      // The multipart body is read part by part in the handler; the schema above documents it.
      validatorCompiler: () => (value) => ({ value }),
      onRequest: async (request) => {
        if (Number(request.headers['content-length'] ?? 0) > UPLOAD_BODY_MAX)
          throw new HttpError(413, MEDIA_TEXTS.tooBig, { code: 'file_too_large', field: 'file' });
      },
      handler: async (req) => {
        const admin = userOf(req);
        const upload = await readUploadForm(req, 'file', [], MEDIA_TEXTS);
        return media.upload(admin, upload.file, upload.filename);
      },
    });

    app.get('/api/admin/media', {
      config: { access: 'admin', permission: 'pages' },
      schema: {
        tags,
        summary: 'Загруженные картинки, новые первыми, и где каждая используется',
        response: { 200: MediaList, ...errorReplies(401, 403) },
      },
      handler: async () => media.list(),
    });

    app.delete('/api/admin/media/:hash', {
      config: { access: 'admin', permission: 'pages' },
      schema: {
        tags,
        summary: 'Удалить картинку, на которую ничего не ссылается (иначе 409 со списком мест в used_in)',
        params: MediaHashParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        await media.remove(userOf(req), req.params.hash);
        return { message: MEDIA_TEXTS.deleted };
      },
    });

    // The files themselves, outside /api: named by their content, so they are cached for a year.
    app.get('/media/:file', { config: { access: 'public' }, schema: { hide: true } }, async (req, reply) => {
      const match = FILE_NAME.exec((req.params as { file: string }).file);
      const bytes = match && (await media.file(match[1]!, match[2]!));
      if (!match || !bytes)
        return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(MEDIA_TEXTS.notFound);
      const etag = `"${match[1]}"`;
      reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', etag).header('x-content-type-options', 'nosniff');
      if (req.headers['if-none-match']?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return reply.code(304).send();
      return reply.type(MEDIA_MIME[match[2]!]!).send(bytes);
    });
  };
}
