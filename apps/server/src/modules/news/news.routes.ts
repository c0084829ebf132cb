import {
  IdParams,
  MessageResponse,
  NEWS_PAGE_SIZE,
  NewsBody,
  NewsFeedQuery,
  NewsFeedResponse,
  NewsItem,
  NewsListResponse,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { sendCached } from '../../front-door/http.ts';
import { userOf } from '../../plugins/auth.ts';
import * as service from './news.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Новости'];

export function newsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/tidings/news', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: `Лента новостей для главной страницы, новые первыми, по ${NEWS_PAGE_SIZE} на страницу (?page=2 …); next_page — номер следующей или null`,
        querystring: NewsFeedQuery,
        response: { 200: NewsFeedResponse, 304: z.null(), ...errorReplies(400) },
      },
      handler: async (req, reply) => sendCached(req, reply, await service.feedBody(ctx, Number(req.query.page ?? 1))),
    });

    app.get('/api/tidings/all', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Все новости списком, новые первыми (таблица админ-панели)',
        response: { 200: NewsListResponse, 304: z.null() },
      },
      handler: async (req, reply) => sendCached(req, reply, await service.listBody(ctx)),
    });

    // The spec keeps one news item's address at /api/tidings/{id} (its PUT and DELETE), so reading it lives there too.
    app.get('/api/tidings/:id', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Одна новость по номеру (страница /news/{id})',
        params: IdParams,
        response: { 200: NewsItem, ...errorReplies(400, 404) },
      },
      handler: async (req) => service.getNews(ctx, req.params.id),
    });

    app.post('/api/tidings/news', {
      config: { access: 'admin', permission: 'news' },
      schema: {
        tags,
        summary: 'Добавить новость (администратор)',
        body: NewsBody,
        response: { 201: NewsItem, ...errorReplies(400, 401, 403) },
      },
      handler: async (req, reply) => {
        const actor = userOf(req);
        return reply.code(201).send(await service.createNews(ctx, actor, req.body));
      },
    });

    app.put('/api/tidings/:id', {
      config: { access: 'admin', permission: 'news' },
      schema: {
        tags,
        summary: 'Изменить новость (администратор)',
        params: IdParams,
        body: NewsBody,
        response: { 200: NewsItem, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        return service.updateNews(ctx, actor, req.params.id, req.body);
      },
    });

    app.delete('/api/tidings/:id', {
      config: { access: 'admin', permission: 'news' },
      schema: {
        tags,
        summary: 'Удалить новость (администратор)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        await service.deleteNews(ctx, actor, req.params.id);
        return { message: service.TEXTS.deleted };
      },
    });
  };
}
