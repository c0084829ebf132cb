import fastifyMultipart from '@fastify/multipart';
import {
  AdminCape,
  CAPE_MAX_BYTES,
  CAPE_TEXTS,
  CapeGrantBody,
  CapeGrantParams,
  CapeUpdateBody,
  ChooseCapeBody,
  IdParams,
  MessageResponse,
  MyCapes,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies, HttpError } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { readUploadForm } from '../../plugins/upload-form.ts';
import { capeTextures } from '../users/users.ports.ts';
import { capeTextureSource } from './capes.repo.ts';
import { createCapeService } from './capes.service.ts';

const tags = ['Плащи'];
const UPLOAD_BODY_MAX = CAPE_MAX_BYTES + 16 * 1024;

export function capesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  capeTextures.provide(capeTextureSource);
  const capes = createCapeService(ctx);
  return async (app) => {
    await app.register(fastifyMultipart, {
      limits: { fileSize: CAPE_MAX_BYTES, files: 1, fields: 1, parts: 2, fieldNameSize: 32, fieldSize: 256, headerPairs: 20 },
      throwFileSizeLimit: true,
    });

    app.get('/api/admin/capes', {
      config: { access: 'admin', permission: 'donate' },
      schema: { tags, summary: 'Все плащи и кому они выданы', response: { 200: z.array(AdminCape), ...errorReplies(401, 403) } },
      handler: async () => capes.list(),
    });

    app.post('/api/admin/capes', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary:
          'Загрузить плащ: multipart/form-data, PNG в поле «cape» (64×32 и кратные до 512×256, 22×17 или 46×23 и кратные; до 256 КБ) и название в поле «title»',
        consumes: ['multipart/form-data'],
        body: z.object({ cape: z.string().meta({ format: 'binary' }), title: z.string() }),
        response: { 200: AdminCape, ...errorReplies(400, 401, 403, 409, 413, 415) },
      },
      // The multipart body is read part by part in the handler; the schema above documents it.
      validatorCompiler: () => (value) => ({ value }),
      onRequest: async (request) => {
        if (Number(request.headers['content-length'] ?? 0) > UPLOAD_BODY_MAX)
          throw new HttpError(413, CAPE_TEXTS.tooBig, { code: 'file_too_large', field: 'cape' });
      },
      handler: async (req) => {
        const admin = userOf(req);
        const upload = await readUploadForm(req, 'cape', ['title'], CAPE_TEXTS);
        return capes.upload(admin, upload.file, upload.fields.title);
      },
    });

    app.put('/api/admin/capes/:id', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Переименовать плащ',
        params: IdParams,
        body: CapeUpdateBody,
        response: { 200: AdminCape, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => capes.rename(userOf(req), req.params.id, req.body.title),
    });

    app.delete('/api/admin/capes/:id', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Удалить плащ (его выдачи тоже; носившие остаются без плаща)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await capes.remove(userOf(req), req.params.id);
        return { message: 'Плащ удалён' };
      },
    });

    app.post('/api/admin/capes/:id/grants', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Выдать плащ игроку ({username}) или донату ({tier_id}: его обладатели могут надеть плащ)',
        params: IdParams,
        body: CapeGrantBody,
        response: { 200: AdminCape, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => capes.grant(userOf(req), req.params.id, req.body),
    });

    app.delete('/api/admin/capes/:id/grants/:grantId', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Отменить выдачу плаща',
        params: CapeGrantParams,
        response: { 200: AdminCape, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => capes.revoke(userOf(req), req.params.id, req.params.grantId),
    });

    app.get('/api/user/capes', {
      config: { access: 'user' },
      schema: { tags, summary: 'Плащи, которые можно надеть, и выбранный', response: { 200: MyCapes, ...errorReplies(401) } },
      handler: async (req) => capes.myCapes(userOf(req)),
    });

    app.put('/api/user/cape', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Надеть плащ ({cape_id}) или снять ({cape_id: null})',
        body: ChooseCapeBody,
        response: { 200: MyCapes, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => capes.choose(userOf(req), req.body.cape_id),
    });
  };
}
