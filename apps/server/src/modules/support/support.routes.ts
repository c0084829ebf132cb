import fastifyMultipart from '@fastify/multipart';
import {
  AdminSupportQuery,
  AdminSupportTicket,
  AdminSupportTicketPage,
  APPEAL_TOKEN_HEADER,
  AppealBody,
  AppealHeaders,
  AppealView,
  CannedAnswer,
  CannedAnswerBody,
  CannedAnswerList,
  IdParams,
  MessageResponse,
  SUPPORT_IMAGE_MAX_BYTES,
  SUPPORT_TEXTS,
  SupportAssignBody,
  SupportAttachment,
  SupportCategory,
  SupportCategoryBody,
  SupportCategoryList,
  SupportCreated,
  SupportLinkChoices,
  SupportMessageBody,
  SupportPageQuery,
  SupportStaffList,
  SupportStaffMessageBody,
  SupportTicket,
  SupportTicketBody,
  SupportTicketPage,
} from '@kubik/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';
import { badRequest, errorReplies, HttpError } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { rightsOf, userOf } from '../../plugins/auth.ts';
import { readUploadForm } from '../../plugins/upload-form.ts';
import { banAppealToken, userErased } from '../users/users.ports.ts';
import { AppealLinks } from './support.appeal-links.ts';
import { ATTACHMENT_MIME, type AttachmentType } from './support.images.ts';
import { deleteTicketsOf } from './support.repo.ts';
import { createSupportService } from './support.service.ts';

const tags = ['Поддержка'];
const adminTags = ['Поддержка (сотрудники)'];
/** Room for the multipart envelope around a file of the largest allowed size. */
const UPLOAD_BODY_MAX = SUPPORT_IMAGE_MAX_BYTES + 16 * 1024;
const image = {
  description: 'Картинка (PNG, JPEG или WebP)',
  content: Object.fromEntries(['image/png', 'image/jpeg', 'image/webp'].map((t) => [t, { schema: z.string().meta({ format: 'binary' }) }])),
};

/** A private picture: cached by this browser only, never sniffed or run as anything but an image. */
function sendPicture(reply: FastifyReply, type: AttachmentType, bytes: Buffer) {
  return reply
    .type(ATTACHMENT_MIME[type])
    .header('cache-control', 'private, max-age=86400')
    .header('vary', 'Cookie, Authorization')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'")
    .send(bytes);
}

type App = Parameters<FastifyPluginAsyncZod>[0];

/**
 * A list the staff keep (categories, canned answers): GET the list, POST one (201), PUT and
 * DELETE one by id, each behind the support permission, with its schemas and refusals declared.
 */
function staffRecords<List extends z.ZodType, Body extends z.ZodType, Created extends z.ZodType, Updated extends z.ZodType>(
  app: App,
  r: {
    path: string;
    summary: { list: string; create: string; update: string; remove: string };
    list: List;
    body: Body;
    created: Created;
    updated: Updated;
    /** The answer to a deletion. */
    removed: string;
    handlers: {
      list: () => Promise<z.input<List>>;
      create: (req: FastifyRequest, body: z.output<Body>) => Promise<z.input<Created>>;
      update: (req: FastifyRequest, id: number, body: z.output<Body>) => Promise<z.input<Updated>>;
      remove: (req: FastifyRequest, id: number) => Promise<void>;
    };
  },
) {
  const config = { access: 'admin' as const, permission: 'support' as const };
  const tags = adminTags;
  // The type provider cannot resolve a schema that is a type parameter: the routes see the schemas
  // as plain ones, and the handlers are checked against the same schemas where they are given.
  const [list, body, created, updated]: z.ZodType[] = [r.list, r.body, r.created, r.updated];
  const input = (req: FastifyRequest) => req.body as z.output<Body>;
  app.get(r.path, {
    config,
    schema: { tags, summary: r.summary.list, response: { 200: list, ...errorReplies(401, 403) } },
    handler: async () => r.handlers.list(),
  });
  app.post(r.path, {
    config,
    schema: { tags, summary: r.summary.create, body, response: { 201: created, ...errorReplies(400, 401, 403) } },
    handler: async (req, reply) => reply.code(201).send(await r.handlers.create(req, input(req))),
  });
  app.put(`${r.path}/:id`, {
    config,
    schema: {
      tags,
      summary: r.summary.update,
      params: IdParams,
      body,
      response: { 200: updated, ...errorReplies(400, 401, 403, 404) },
    },
    handler: async (req) => r.handlers.update(req, req.params.id, input(req)),
  });
  app.delete(`${r.path}/:id`, {
    config,
    schema: { tags, summary: r.summary.remove, params: IdParams, response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) } },
    handler: async (req) => {
      await r.handlers.remove(req, req.params.id);
      return { message: r.removed };
    },
  });
}

export function supportRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const support = createSupportService(ctx);
  banAppealToken.provide(async (db, userId, since) => (await AppealLinks.load(db)).issue(userId, since));
  userErased.on('support', deleteTicketsOf);
  const caller = (req: FastifyRequest) => ({ user: userOf(req), rights: rightsOf(req) });
  /** An appeal link this site did not sign (or that expired) is refused before the body is read or the database asked. */
  const signedAppeal = async (req: FastifyRequest) => {
    if (!(await support.appealSigned(req.headers[APPEAL_TOKEN_HEADER])))
      throw badRequest(SUPPORT_TEXTS.appealLinkInvalid, { code: 'appeal_link_invalid' });
  };
  const appealToken = (req: FastifyRequest) => String(req.headers[APPEAL_TOKEN_HEADER]);

  return async (app) => {
    // Pictures uploaded and never sent are forgotten after a day, by whichever instance runs the job.
    ctx.jobs.register(ctx.schedule.job(support.staleUploadsJob()));

    // ---- Players

    app.get('/api/support/categories', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Категории обращений с их полями (включённые)',
        response: { 200: SupportCategoryList, ...errorReplies(401) },
      },
      handler: async () => support.categories(true),
    });

    app.get('/api/support/links', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Свои последние покупки, выдачи и пополнения, к которым можно привязать обращение',
        response: { 200: SupportLinkChoices, ...errorReplies(401) },
      },
      handler: async (req) => ({ items: await support.linkChoices(userOf(req)) }),
    });

    app.get('/api/support/tickets', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Свои обращения, новые изменения первыми, по 20 на странице',
        querystring: SupportPageQuery,
        response: { 200: SupportTicketPage, ...errorReplies(400, 401) },
      },
      handler: async (req) => support.list(userOf(req), req.query.page),
    });

    app.post('/api/support/tickets', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Создать обращение: категория, тема, сообщение, ответы на поля категории, по желанию своя покупка, выдача или пополнение и до 4 загруженных картинок. Не больше 3 открытых обращений и 6 новых за 15 минут',
        body: SupportTicketBody,
        response: { 201: SupportCreated, ...errorReplies(400, 401, 409, 429) },
      },
      handler: async (req, reply) => reply.code(201).send({ id: await support.create(userOf(req), req.body) }),
    });

    app.get('/api/support/tickets/:id', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Обращение с перепиской: только его автору (и сотрудникам с правом «Обращения»); внутренних заметок здесь нет',
        params: IdParams,
        response: { 200: SupportTicket, ...errorReplies(400, 401, 404) },
      },
      handler: async (req) => support.read(caller(req), req.params.id),
    });

    app.post('/api/support/tickets/:id/messages', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Ответить в своём обращении (оно снова «Открыт»); закрытое не принимает ответов',
        params: IdParams,
        body: SupportMessageBody,
        response: { 200: SupportTicket, ...errorReplies(400, 401, 404, 409, 429) },
      },
      handler: async (req) => support.reply(userOf(req), req.params.id, req.body),
    });

    app.post('/api/support/tickets/:id/close', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Закрыть своё обращение (вопрос решён)',
        params: IdParams,
        response: { 200: SupportTicket, ...errorReplies(400, 401, 404, 409) },
      },
      handler: async (req) => support.closeOwn(userOf(req), req.params.id),
    });

    app.get('/api/support/attachments/:id', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Картинка из обращения: загрузившему, автору обращения (кроме заметок) и сотрудникам',
        params: IdParams,
        response: { 200: image, ...errorReplies(400, 401, 404) },
      },
      handler: async (req, reply) => {
        const file = await support.picture(caller(req), req.params.id);
        return sendPicture(reply, file.type, file.bytes);
      },
    });

    // Only this child plugin parses multipart, with the attachment limits.
    await app.register(async (uploads) => {
      await uploads.register(fastifyMultipart, {
        limits: { fileSize: SUPPORT_IMAGE_MAX_BYTES, files: 1, fields: 0, parts: 1, fieldNameSize: 32, headerPairs: 20 },
        throwFileSizeLimit: true,
      });
      uploads.post('/api/support/attachments', {
        config: { access: 'user' },
        schema: {
          tags,
          summary:
            'Загрузить картинку для сообщения: multipart/form-data, файл в поле «file» (PNG, JPEG или WebP, до 5 МБ и 4096×4096). Файл кодируется заново без метаданных; его номер передают в attachment_ids сообщения',
          consumes: ['multipart/form-data'],
          body: z.object({ file: z.string().meta({ format: 'binary' }) }),
          response: { 200: SupportAttachment, ...errorReplies(400, 401, 413, 415, 429) },
        },
        // The multipart body is read part by part in the handler; the schema above documents it.
        validatorCompiler: () => (value) => ({ value }),
        onRequest: [
          refuseWhileBlocked(ctx.limiter, (req) => `support:upload:${req.user?.id ?? 0}`),
          async (req) => {
            if (Number(req.headers['content-length'] ?? 0) > UPLOAD_BODY_MAX)
              throw new HttpError(413, SUPPORT_TEXTS.tooBig, { code: 'file_too_large', field: 'file' });
          },
        ],
        handler: async (req) => {
          const user = userOf(req);
          await support.admitUpload(user);
          const upload = await readUploadForm(req, 'file', [], SUPPORT_TEXTS);
          return support.upload(user, upload.file, upload.filename);
        },
      });
    });

    // ---- Ban appeals: without an account, by a signed link (docs/support.md)

    app.get('/api/support/appeal', {
      config: { access: 'public' },
      onRequest: signedAppeal,
      schema: {
        tags,
        summary: `Обжалование блокировки по ссылке (токен в заголовке ${APPEAL_TOKEN_HEADER}): блокировка и переписка, если обжалование уже написано`,
        headers: AppealHeaders,
        response: { 200: AppealView, ...errorReplies(400, 409) },
      },
      handler: async (req, reply) => reply.header('cache-control', 'no-store').send(await support.appealView(appealToken(req))),
    });

    app.post('/api/support/appeal', {
      config: { access: 'public' },
      onRequest: [signedAppeal, refuseWhileBlocked(ctx.limiter, (req) => `support:appeal:ip:${addressKey(req.ip)}`)],
      schema: {
        tags,
        summary: `Обжаловать блокировку, которая сейчас действует (токен ссылки в заголовке ${APPEAL_TOKEN_HEADER}); одно обжалование на блокировку`,
        headers: AppealHeaders,
        body: AppealBody,
        response: { 201: SupportCreated, ...errorReplies(400, 409, 429) },
      },
      handler: async (req, reply) => reply.code(201).send({ id: await support.appeal(appealToken(req), req.body.message, req.ip) }),
    });

    app.post('/api/support/appeal/messages', {
      config: { access: 'public' },
      onRequest: signedAppeal,
      schema: {
        tags,
        summary: `Ответить в своём обжаловании (токен ссылки в заголовке ${APPEAL_TOKEN_HEADER})`,
        headers: AppealHeaders,
        body: AppealBody,
        response: { 200: SupportTicket, ...errorReplies(400, 404, 409, 429) },
      },
      handler: async (req) => support.appealReply(appealToken(req), req.body.message),
    });

    // ---- Staff (permission «Обращения»)

    const staff = { access: 'admin' as const, permission: 'support' as const };

    app.get('/api/admin/support/tickets', {
      config: staff,
      schema: {
        tags: adminTags,
        summary:
          'Обращения с отбором по состоянию (active — открытые и ждущие игрока), виду, категории, ответственному (me, none, номер) и поиску по нику или теме',
        querystring: AdminSupportQuery,
        response: { 200: AdminSupportTicketPage, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => support.adminList(userOf(req), req.query),
    });

    app.get('/api/admin/support/tickets/:id', {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Обращение с перепиской и внутренними заметками, игрок, ответственный и (для обжалования) блокировка',
        params: IdParams,
        response: { 200: AdminSupportTicket, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => support.adminRead(req.params.id),
    });

    app.post('/api/admin/support/tickets/:id/messages', {
      config: staff,
      schema: {
        tags: adminTags,
        summary:
          'Ответить игроку (обращение ждёт его ответа, игрок узнаёт в колокольчике и по почте; close: true — и закрыть) или оставить внутреннюю заметку (internal: true: её видят только сотрудники)',
        params: IdParams,
        body: SupportStaffMessageBody,
        response: { 200: AdminSupportTicket, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => support.answer(userOf(req), req.params.id, req.body),
    });

    app.post('/api/admin/support/tickets/:id/close', {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Закрыть обращение',
        params: IdParams,
        response: { 200: AdminSupportTicket, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => support.close(userOf(req), req.params.id),
    });

    app.post('/api/admin/support/tickets/:id/reopen', {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Открыть закрытое обращение снова',
        params: IdParams,
        response: { 200: AdminSupportTicket, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => support.reopen(userOf(req), req.params.id),
    });

    app.put('/api/admin/support/tickets/:id/assignee', {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Назначить ответственного (сотрудника с правом «Обращения») или снять (null)',
        params: IdParams,
        body: SupportAssignBody,
        response: { 200: AdminSupportTicket, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => support.assign(userOf(req), req.params.id, req.body.assignee_id),
    });

    app.get('/api/admin/support/staff', {
      config: staff,
      schema: {
        tags: adminTags,
        summary: 'Кому можно назначить обращение: владелец и сотрудники с правом «Обращения»',
        response: { 200: SupportStaffList, ...errorReplies(401, 403) },
      },
      handler: async () => ({ staff: await support.staff() }),
    });

    staffRecords(app, {
      path: '/api/admin/support/categories',
      summary: {
        list: 'Все категории, и выключенные',
        create: 'Добавить категорию: название, описание, значок и поля (строка, текст, число, выбор, флажок; обязательные или нет)',
        update: 'Изменить категорию; поля с прежним key сохраняют его',
        remove: 'Удалить категорию: новых обращений в ней не будет, старые остаются',
      },
      list: SupportCategoryList,
      body: SupportCategoryBody,
      created: SupportCreated,
      updated: SupportCategory,
      removed: 'Категория удалена',
      handlers: {
        list: () => support.categories(false),
        create: async (req, body) => ({ id: await support.createCategory(userOf(req), body) }),
        update: (req, id, body) => support.updateCategory(userOf(req), id, body),
        remove: (req, id) => support.deleteCategory(userOf(req), id),
      },
    });

    staffRecords(app, {
      path: '/api/admin/support/canned',
      summary: {
        list: 'Шаблоны ответов',
        create: 'Добавить шаблон ответа',
        update: 'Изменить шаблон ответа',
        remove: 'Удалить шаблон ответа',
      },
      list: CannedAnswerList,
      body: CannedAnswerBody,
      created: CannedAnswer,
      updated: CannedAnswer,
      removed: 'Шаблон удалён',
      handlers: {
        list: () => support.canned(),
        create: (req, body) => support.saveCanned(userOf(req), null, body),
        update: (req, id, body) => support.saveCanned(userOf(req), id, body),
        remove: (req, id) => support.deleteCanned(userOf(req), id),
      },
    });
  };
}
