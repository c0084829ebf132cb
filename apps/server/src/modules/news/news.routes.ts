import { ErrorResponse, IdParams, MessageResponse, NewsBody, NewsFeedResponse, NewsItem, NewsListResponse } from '@kubik/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { requireAdmin } from '../../plugins/auth.ts';
import * as service from './news.service.ts';

const tags = ['Новости'];
const err = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorResponse]));

export function newsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  // Checked before the body is parsed, so outsiders get 401/403 whatever they send.
  const adminOnly = async (req: FastifyRequest) => {
    await requireAdmin(ctx, req);
  };
  return async (app) => {
    app.get('/api/tidings/news', {
      schema: { tags, summary: 'Лента новостей для главной страницы, новые первыми', response: { 200: NewsFeedResponse } },
      handler: async () => ({ news: await service.listNews(ctx) }),
    });

    app.get('/api/tidings/all', {
      schema: { tags, summary: 'Все новости списком, новые первыми (таблица админ-панели)', response: { 200: NewsListResponse } },
      handler: async () => service.listNews(ctx),
    });

    app.post('/api/tidings/news', {
      onRequest: adminOnly,
      schema: { tags, summary: 'Добавить новость (администратор)', body: NewsBody, response: { 201: NewsItem, ...err(400, 401, 403) } },
      handler: async (req, reply) => {
        const actor = await requireAdmin(ctx, req);
        return reply.code(201).send(await service.createNews(ctx, actor, req.body));
      },
    });

    app.put('/api/tidings/:id', {
      onRequest: adminOnly,
      schema: { tags, summary: 'Изменить новость (администратор)', params: IdParams, body: NewsBody, response: { 200: NewsItem, ...err(400, 401, 403, 404) } },
      handler: async (req) => {
        const actor = await requireAdmin(ctx, req);
        return service.updateNews(ctx, actor, req.params.id, req.body);
      },
    });

    app.delete('/api/tidings/:id', {
      onRequest: adminOnly,
      schema: { tags, summary: 'Удалить новость (администратор)', params: IdParams, response: { 200: MessageResponse, ...err(400, 401, 403, 404) } },
      handler: async (req) => {
        const actor = await requireAdmin(ctx, req);
        await service.deleteNews(ctx, actor, req.params.id);
        return { message: service.TEXTS.deleted };
      },
    });
  };
}
