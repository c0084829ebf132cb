import { addressKey } from '../../lib/rate-limit.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';
import { EmailChangeBody, EmailChangeResponse, EmailStatus, MessageResponse, TokenParams } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { EmailLinkKey, refuseUnsigned } from '../users/email-tokens.ts';
import { userErased } from '../users/users.ports.ts';
import { forgetEmailChanges } from './email-change.repo.ts';
import * as service from './email-change.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Аккаунты'];

const json = 'application/json; charset=utf-8';
/** What the service answers for a link it cannot use, sent as it is for one this site never signed. */
const FORGED_CONFIRM = JSON.stringify({ error: service.EMAIL_TEXTS.confirmBad, code: 'email_link_invalid' });
const FORGED_CANCEL = JSON.stringify({ error: service.EMAIL_TEXTS.cancelBad, code: 'email_link_invalid' });

export function emailChangeRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  userErased.on('email-change', forgetEmailChanges);
  return async (app) => {
    const links = await EmailLinkKey.load(ctx.db);
    const user = { config: { access: 'user' as const } };
    const pub = { config: { access: 'public' as const } };

    app.get('/api/user/email', {
      ...user,
      schema: {
        tags,
        summary: 'Почта аккаунта и ожидающая подтверждения новая почта',
        response: { 200: EmailStatus, ...errorReplies(401) },
      },
      handler: async (req) => service.emailStatus(ctx, userOf(req)),
    });

    app.post('/api/user/email', {
      ...user,
      schema: {
        tags,
        summary:
          'Сменить почту: { email, password }. На новый адрес уходит ссылка подтверждения (24 ч, один раз), на старый — уведомление со ссылкой отмены (7 дней). Почта меняется только после подтверждения.',
        body: EmailChangeBody,
        response: { 200: EmailChangeResponse, ...errorReplies(400, 401, 409, 429) },
      },
      handler: async (req) => service.requestEmailChange(ctx, userOf(req), req.body.email, req.body.password),
    });

    app.delete('/api/user/email/pending', {
      ...user,
      schema: { tags, summary: 'Отозвать свой запрос на смену почты', response: { 200: MessageResponse, ...errorReplies(401, 409) } },
      handler: async (req) => ({ message: await service.withdrawEmailChange(ctx, userOf(req)) }),
    });

    app.post('/api/user/email/confirm/:token', {
      ...pub,
      onRequest: [
        refuseWhileBlocked(ctx.limiter, (req) => `email-link:ip:${addressKey(req.ip)}`),
        refuseUnsigned(links, 'email-confirm', (reply) => void reply.code(400).type(json).send(FORGED_CONFIRM)),
      ],
      schema: {
        tags,
        summary: 'Подтверждение новой почты по ссылке из письма (страница /email-change?confirm=…)',
        params: TokenParams,
        response: { 200: MessageResponse, ...errorReplies(400, 409, 429) },
      },
      handler: async (req) => ({ message: await service.confirmEmailChange(ctx, req.params.token, req.ip) }),
    });

    app.post('/api/user/email/cancel/:token', {
      ...pub,
      onRequest: [
        refuseWhileBlocked(ctx.limiter, (req) => `email-link:ip:${addressKey(req.ip)}`),
        refuseUnsigned(links, 'email-cancel', (reply) => void reply.code(400).type(json).send(FORGED_CANCEL)),
      ],
      schema: {
        tags,
        summary:
          'Отмена смены почты по ссылке из письма на старый адрес (страница /email-change?cancel=…): возвращает прежний адрес и завершает все сеансы',
        params: TokenParams,
        response: { 200: MessageResponse, ...errorReplies(400, 409, 429) },
      },
      handler: async (req) => ({ message: await service.cancelEmailChange(ctx, req.params.token, req.ip) }),
    });
  };
}
