import fastifyMultipart from '@fastify/multipart';
import {
  AdminLauncher,
  LAUNCHER_TEXTS,
  LauncherBuild,
  LauncherLinkBody,
  LauncherList,
  LauncherPlatformParams,
  LauncherRemoveQuery,
  LauncherUploadQuery,
  MessageResponse,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { errorReplies, HttpError } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { createLauncherService } from './launcher.service.ts';

const tags = ['Лаунчер'];

/**
 * Админ-панель → Лаунчер and the list /help shows. The file itself is served by app.ts's static
 * /downloads/ (DATA_DIR/downloads/launcher/<platform>/<file>).
 */
export function launcherRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const launcher = createLauncherService(ctx);
  const maxBytes = ctx.config.launcher.maxBytes;
  const tooBig = () => new HttpError(413, LAUNCHER_TEXTS.tooBig(maxBytes), { code: 'file_too_large', field: 'file' });
  return async (app) => {
    app.get('/api/launcher', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Лаунчер для /help: по системам версия, ссылка, а у загруженного файла — размер и SHA-256. Недоступные файлы не показываются',
        response: { 200: LauncherList },
      },
      handler: async (_req, reply) => {
        reply.header('cache-control', 'no-cache');
        return { builds: await launcher.list() };
      },
    });

    app.get('/api/admin/launcher', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Лаунчер по системам: загруженный файл, ссылка, ссылка из настроек или ничего; и предел размера файла',
        response: { 200: AdminLauncher, ...errorReplies(401, 403) },
      },
      handler: async () => launcher.admin(),
    });

    // Only the upload route parses multipart, with the launcher's limits (other routes refuse a form).
    const uploadRoutes: FastifyPluginAsyncZod = async (upload) => {
      await upload.register(fastifyMultipart, {
        limits: { fileSize: maxBytes, files: 1, fields: 0, parts: 1, fieldNameSize: 32, headerPairs: 20 },
        throwFileSizeLimit: true,
      });

      upload.post('/api/admin/launcher/:platform/file', {
        config: { access: 'admin', permission: 'settings' },
        schema: {
          tags,
          summary:
            'Загрузить файл лаунчера: multipart/form-data, файл в поле «file» (.exe, .AppImage, .dmg или .jar по системе), версия в адресе (?version=). Прежний файл этой системы удаляется',
          consumes: ['multipart/form-data'],
          params: LauncherPlatformParams,
          querystring: LauncherUploadQuery,
          response: { 200: LauncherBuild, ...errorReplies(400, 401, 403, 413, 415) },
        },
        onRequest: async (request) => {
          if (Number(request.headers['content-length'] ?? 0) > maxBytes + 64 * 1024) throw tooBig();
        },
        handler: async (req) => {
          const admin = userOf(req);
          if (!req.isMultipart()) throw new HttpError(415, LAUNCHER_TEXTS.notMultipart, { code: 'not_multipart' });
          let part;
          try {
            part = await req.file();
          } catch (error) {
            const code = (error as { code?: string } | null)?.code;
            if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooBig();
            if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE')
              throw new HttpError(415, LAUNCHER_TEXTS.notMultipart, { code: 'not_multipart' });
            if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
              throw new HttpError(400, LAUNCHER_TEXTS.unknownField, { code: 'bad_form' });
            throw new HttpError(400, LAUNCHER_TEXTS.badForm, { code: 'bad_form' });
          }
          if (!part) throw new HttpError(400, LAUNCHER_TEXTS.noFile, { code: 'no_file', field: 'file' });
          if (part.fieldname !== 'file') {
            part.file.resume();
            throw new HttpError(400, LAUNCHER_TEXTS.unknownField, { code: 'bad_form' });
          }
          try {
            return await launcher.upload(admin, req.params.platform, req.query.version, { filename: part.filename, stream: part.file });
          } catch (error) {
            if (error instanceof HttpError) throw error;
            // busboy's "Unexpected end of form" and the like: the form broke off.
            // Anything else the stream threw is the form's fault; a failing disk (syscall errors) is ours.
            if ((error as { syscall?: string } | null)?.syscall) throw error;
            req.log.info({ err: error }, 'launcher upload: broken form');
            throw new HttpError(400, LAUNCHER_TEXTS.badForm, { code: 'bad_form' });
          }
        },
      });
    };
    await app.register(uploadRoutes);

    app.put('/api/admin/launcher/:platform/link', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Дать ссылку на лаунчер для системы вместо файла (загруженный файл этой системы удаляется)',
        params: LauncherPlatformParams,
        body: LauncherLinkBody,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        await launcher.link(userOf(req), req.params.platform, req.body);
        return { message: LAUNCHER_TEXTS.linked };
      },
    });

    app.delete('/api/admin/launcher/:platform', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Не показывать лаунчер для системы (?reset=1 — вернуть ссылку из настроек)',
        params: LauncherPlatformParams,
        querystring: LauncherRemoveQuery,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const reset = req.query.reset === '1';
        if (reset) await launcher.reset(userOf(req), req.params.platform);
        else await launcher.hide(userOf(req), req.params.platform);
        return { message: reset ? LAUNCHER_TEXTS.reset : LAUNCHER_TEXTS.hidden };
      },
    });
  };
}
