import { addressKey } from '../../lib/rate-limit.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';
import {
  ChangePasswordBody,
  ConfirmQuery,
  isLocalPath,
  ForgotPasswordBody,
  LoginBody,
  LoginResponse,
  MeResponse,
  MessageResponse,
  RegisterBody,
  ResetPasswordBody,
  TokenParams,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { clearSessionCookie, deviceToken, optionalUser, rightsOf, setDeviceCookie, setSessionCookie, userOf } from '../../plugins/auth.ts';
import { EmailLinkKey, refuseUnsigned } from '../users/email-tokens.ts';
import { deleteSession } from '../users/users.logins.ts';
import { sessionTokenOf } from '../users/session-tokens.ts';
import * as service from './accounts.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Аккаунты'];

const FORGED_RESET = JSON.stringify({ error: service.TEXTS.resetBad, code: 'reset_link_invalid' });
const CONFIRM_FAILED = '/login?verified=invalid';

export function accountsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const links = await EmailLinkKey.load(ctx.db);
    app.post('/api/user/register', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => `register:ip:${addressKey(req.ip)}`),
      schema: {
        tags,
        summary: 'Регистрация. is_admin и balance учитываются, только если запрос делает администратор.',
        body: RegisterBody,
        response: { 201: MessageResponse.extend({ id: z.number() }), ...errorReplies(400, 409, 429) },
      },
      handler: async (req, reply) => {
        const actor = await optionalUser(req);
        const result = await service.register(ctx, req.body, actor, req.ip, req.cookies, req.headers['user-agent'] ?? null);
        return reply.code(201).send(result);
      },
    });

    app.get('/api/user/confirm/:token', {
      config: { access: 'public' },
      onRequest: refuseUnsigned(links, 'verify', (reply) => void reply.redirect(CONFIRM_FAILED, 302)),
      schema: {
        tags,
        summary:
          'Ссылка из письма: подтверждает почту и ведёт на /login?verified=true; с next (страница сайта, откуда игрок пришёл ' +
          'регистрироваться) — на /login?verified=true&next=…, чтобы после входа вернуться туда',
        params: TokenParams,
        querystring: ConfirmQuery,
        response: { 302: z.null() },
      },
      handler: async (req, reply) => {
        const ok = await service.confirmEmail(ctx, req.params.token);
        // Only a page of this site; anything else is dropped, never followed.
        const next = isLocalPath(req.query.next) ? `&next=${encodeURIComponent(req.query.next)}` : '';
        return reply.redirect(ok ? `/login?verified=true${next}` : CONFIRM_FAILED, 302);
      },
    });

    app.post('/api/user/resend-confirmation', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => `forgot:ip:${addressKey(req.ip)}`),
      schema: {
        tags,
        summary: 'Отправить письмо подтверждения ещё раз',
        body: ForgotPasswordBody,
        response: { 200: MessageResponse, ...errorReplies(400, 429) },
      },
      handler: async (req) => ({ message: await service.resendConfirmation(ctx, req.body.email, req.ip) }),
    });

    app.post('/api/user/login', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => `login:ip:${addressKey(req.ip)}`),
      schema: {
        tags,
        summary:
          'Вход. Браузеру ставит httpOnly-cookie сеанса (и cookie устройства); токен для заголовка Authorization: Bearer возвращается, только если в теле bearer: true. После нескольких неудачных попыток вход в аккаунт с незнакомого устройства замедляется (429).',
        body: LoginBody,
        response: { 200: LoginResponse, ...errorReplies(400, 401, 403, 429) },
      },
      handler: async (req, reply) => {
        const result = await service.login(ctx, req.body, {
          ip: req.ip,
          userAgent: req.headers['user-agent'],
          deviceToken: deviceToken(req),
          signedInAs: (await optionalUser(req))?.id ?? null,
        });
        if (req.body.bearer) return { token: result.token, message: 'Вы вошли' };
        setSessionCookie(ctx, req, reply, result.token);
        setDeviceCookie(ctx, req, reply, result.deviceToken);
        return { message: 'Вы вошли' };
      },
    });

    app.post('/api/user/logout', {
      config: { access: 'public' },
      schema: { tags, summary: 'Выход: завершает текущий сеанс', response: { 200: MessageResponse } },
      handler: async (req, reply) => {
        const token = sessionTokenOf(req.headers);
        if (token && token.length <= 200) await deleteSession(ctx.db, token);
        clearSessionCookie(ctx, req, reply);
        return { message: 'Вы вышли из аккаунта' };
      },
    });

    app.get('/api/user/me', {
      config: { access: 'user' },
      schema: { tags, summary: 'Текущий пользователь', response: { 200: MeResponse, ...errorReplies(401) } },
      handler: async (req) => {
        const user = userOf(req);
        // Never the session token: the cookie is httpOnly so that scripts cannot read it.
        return service.toMe(user, rightsOf(req));
      },
    });

    app.post('/api/user/forgot-password', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => `forgot:ip:${addressKey(req.ip)}`),
      schema: {
        tags,
        summary: 'Письмо со ссылкой для сброса пароля (ответ одинаков, есть такая почта или нет)',
        body: ForgotPasswordBody,
        response: { 200: MessageResponse, ...errorReplies(400, 429) },
      },
      handler: async (req) => ({ message: await service.forgotPassword(ctx, req.body.email, req.ip) }),
    });

    app.get('/api/user/reset-password/:token', {
      config: { access: 'public' },
      onRequest: [
        refuseWhileBlocked(ctx.limiter, (req) => `reset:ip:${addressKey(req.ip)}`),
        refuseUnsigned(links, 'reset', (reply) => void reply.code(400).type('application/json; charset=utf-8').send(FORGED_RESET)),
      ],
      schema: {
        tags,
        summary:
          'Действует ли ссылка сброса пароля (страница проверяет её сразу при открытии), не используя её: 200 — да, ' +
          '400 reset_link_invalid — нет. Ответ не говорит ничего об аккаунте; придуманная ссылка отклоняется до обращения к базе.',
        params: TokenParams,
        response: { 200: MessageResponse, ...errorReplies(400, 429) },
      },
      handler: async (req) => {
        await service.checkResetLink(ctx, req.params.token);
        return { message: service.TEXTS.resetLinkGood };
      },
    });

    app.post('/api/user/reset-password/:token', {
      config: { access: 'public' },
      onRequest: [
        refuseWhileBlocked(ctx.limiter, (req) => `reset:ip:${addressKey(req.ip)}`),
        refuseUnsigned(links, 'reset', (reply) => void reply.code(400).type('application/json; charset=utf-8').send(FORGED_RESET)),
      ],
      schema: {
        tags,
        summary: 'Новый пароль по ссылке из письма; завершает все сеансы',
        params: TokenParams,
        body: ResetPasswordBody,
        response: { 200: MessageResponse, ...errorReplies(400, 429) },
      },
      handler: async (req) => {
        await service.resetPassword(ctx, req.params.token, req.body.new_password, req.ip);
        return { message: service.TEXTS.resetDone };
      },
    });

    app.post('/api/user/change-password', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Смена пароля в личном кабинете; завершает другие сеансы',
        body: ChangePasswordBody,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 429) },
      },
      handler: async (req) => {
        const user = userOf(req);
        await service.changePassword(ctx, user, sessionTokenOf(req.headers) ?? '', req.body.old_password, req.body.new_password);
        return { message: service.TEXTS.passwordChanged };
      },
    });
  };
}
