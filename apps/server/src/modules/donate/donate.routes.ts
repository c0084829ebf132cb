import { DonateBody, DonateListResponse, DonateTier, DonationGoal, IdParams, MessageResponse } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { sendCached } from '../../front-door/http.ts';
import { userOf } from '../../plugins/auth.ts';
import { goalBody } from './donate.community.ts';
import * as service from './donate.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Донат'];

export function donateRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/donate/fully', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Донаты с китами и привилегиями, в порядке администратора',
        response: { 200: DonateListResponse, 304: z.null() },
      },
      handler: async (req, reply) => sendCached(req, reply, await service.listBody(ctx)),
    });

    app.get('/api/donate/goal', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Цель сборов на месяц (рубли), сколько собрано, последние покупки и лучшие донатеры месяца (суммы — если владелец их показывает; скрывшие профиль не называются); кешируется на минуту',
        response: { 200: DonationGoal, 304: z.null() },
      },
      handler: async (req, reply) => sendCached(req, reply, await goalBody(ctx)),
    });

    app.post('/api/donate/add', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Добавить донат (администратор)',
        body: DonateBody,
        response: { 201: DonateTier, ...errorReplies(400, 401, 403) },
      },
      handler: async (req, reply) => {
        const actor = userOf(req);
        return reply.code(201).send(await service.createTier(ctx, actor, req.body));
      },
    });

    app.put('/api/donate/:id', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Изменить донат целиком, вместе с китами и привилегиями (администратор)',
        params: IdParams,
        body: DonateBody,
        response: { 200: DonateTier, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        return service.updateTier(ctx, actor, req.params.id, req.body);
      },
    });

    app.delete('/api/donate/:id', {
      config: { access: 'admin', permission: 'donate' },
      schema: {
        tags,
        summary: 'Удалить донат (администратор)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        await service.deleteTier(ctx, actor, req.params.id);
        return { message: service.TEXTS.deleted };
      },
    });
  };
}
