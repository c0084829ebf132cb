import { AdminPagesResponse, MessageResponse, Page, PageBody, PageLinksResponse, PageSlugParams } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { sendCached } from '../../front-door/http.ts';
import { userOf } from '../../plugins/auth.ts';
import * as service from './pages.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Страницы'];

export function pagesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/pages', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Ссылки на страницы для подвала и меню (только заполненные)',
        response: { 200: PageLinksResponse, 304: z.null() },
      },
      handler: async (req, reply) => sendCached(req, reply, await service.linksBody(ctx)),
    });

    app.get('/api/pages/:slug', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Страница: правила (rules), помощь (help), частые вопросы (faq), оферта (offer), конфиденциальность (privacy), контакты (contacts) или своя; Markdown и безопасный HTML',
        params: PageSlugParams,
        response: { 200: Page, 304: z.null(), ...errorReplies(400, 404) },
      },
      handler: async (req, reply) => sendCached(req, reply, await service.pageBody(ctx, req.params.slug)),
    });

    app.get('/api/admin/pages', {
      config: { access: 'admin', permission: 'pages' },
      schema: { tags, summary: 'Все страницы, и пустые (администратор)', response: { 200: AdminPagesResponse, ...errorReplies(401, 403) } },
      handler: () => service.listAll(ctx),
    });

    app.get('/api/admin/pages/:slug', {
      config: { access: 'admin', permission: 'pages' },
      schema: {
        tags,
        summary: 'Страница для редактирования (администратор)',
        params: PageSlugParams,
        response: { 200: Page, ...errorReplies(400, 401, 403, 404) },
      },
      handler: (req) => service.getForAdmin(ctx, req.params.slug),
    });

    app.put('/api/admin/pages/:slug', {
      config: { access: 'admin', permission: 'pages' },
      // PAGE_BODY_MAX characters of Cyrillic are two bytes each in UTF-8, plus JSON escapes.
      bodyLimit: 512 * 1024,
      schema: {
        tags,
        summary:
          'Сохранить страницу (администратор): {title, body} в Markdown, где показывать ссылку; новый адрес создаёт страницу /p/{slug}',
        params: PageSlugParams,
        body: PageBody,
        response: { 200: Page, ...errorReplies(400, 401, 403) },
      },
      handler: (req) => service.savePage(ctx, userOf(req).id, req.params.slug, req.body),
    });

    app.delete('/api/admin/pages/:slug', {
      config: { access: 'admin', permission: 'pages' },
      schema: {
        tags,
        summary: 'Удалить свою страницу (администратор); страницы сайта удалить нельзя',
        params: PageSlugParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await service.deletePage(ctx, userOf(req).id, req.params.slug);
        return { message: service.TEXTS.deleted };
      },
    });
  };
}
