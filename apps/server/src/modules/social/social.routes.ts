import {
  MessageResponse,
  RedirectProviderParams,
  SocialCompleteBody,
  SocialLinksResponse,
  SocialLoginResult,
  SocialPending,
  SocialProviderParams,
  SocialProvidersPublic,
  SocialRegisterBody,
  SocialSettingsBody,
  SocialSettingsView,
  SocialStartResponse,
  TelegramAuthBody,
  TokenParams,
} from '@kubik/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies, HttpError } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';
import { deviceToken, privateCookie, setDeviceCookie, setSessionCookie, userOf } from '../../plugins/auth.ts';
import { userErased } from '../users/users.ports.ts';
import { deleteLinksOf } from './social.repo.ts';
import * as service from './social.service.ts';
import { saveSettings, settingsView } from './social.settings.ts';

const tags = ['Вход через соцсети'];

/** The browser that started a redirect login (VK ID, Discord); only the callback reads it. */
export const FLOW_COOKIE = 'kubik_social_flow';
const FLOW_PATH = '/api/auth';
/** A provider-proven login waiting for its second factor or its registration. */
export const TICKET_COOKIE = 'kubik_social_ticket';
const TICKET_PATH = '/api/auth/social';

/** Where the browser lands after a redirect login. */
const PAGES = {
  signedIn: '/profile',
  pending: '/login/social',
  linked: '/profile?tab=settings&social=linked',
  loginError: (code: string) => `/login?social_error=${encodeURIComponent(code)}`,
  linkError: (code: string) => `/profile?tab=settings&social_error=${encodeURIComponent(code)}`,
};

const CallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  device_id: z.string().max(512).optional(),
  error: z.string().max(512).optional(),
});

export function socialRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  userErased.on('social', deleteLinksOf);
  const blocked = refuseWhileBlocked(ctx.limiter, (req) => `social:ip:${addressKey(req.ip)}`);

  const meta = (req: FastifyRequest): service.Meta => ({ ip: req.ip, userAgent: req.headers['user-agent'], deviceToken: deviceToken(req) });

  function signIn(req: FastifyRequest, reply: FastifyReply, s: { token: string; deviceToken: string }) {
    setSessionCookie(ctx, req, reply, s.token);
    setDeviceCookie(ctx, req, reply, s.deviceToken);
    reply.clearCookie(TICKET_COOKIE, privateCookie(ctx.config, req, TICKET_PATH));
  }

  function setTicket(req: FastifyRequest, reply: FastifyReply, ticket: string) {
    reply.setCookie(TICKET_COOKIE, ticket, privateCookie(ctx.config, req, TICKET_PATH, service.TICKET_TTL_MS));
  }

  /** A login outcome as the JSON answer (Telegram) — the cookies set. */
  function answer(req: FastifyRequest, reply: FastifyReply, outcome: service.Outcome): SocialLoginResult {
    if (outcome.status === 'signed_in') {
      signIn(req, reply, outcome);
      return { status: 'signed_in', message: service.TEXTS.signedIn };
    }
    if (outcome.status === 'linked') return { status: 'signed_in', message: service.TEXTS.linked };
    setTicket(req, reply, outcome.ticket);
    return { status: outcome.status, message: outcome.status === 'two_factor' ? service.TEXTS.twoFactor : service.TEXTS.register };
  }

  return async (app) => {
    app.get('/api/auth/social/providers', {
      config: { access: 'public' },
      schema: { tags, summary: 'Сервисы входа, ключи которых заданы (без ключей)', response: { 200: SocialProvidersPublic } },
      handler: async () => service.publicProviders(ctx),
    });

    app.get('/api/auth/:provider/start', {
      config: { access: 'public' },
      onRequest: blocked,
      schema: {
        tags,
        summary: 'Начать вход через VK ID или Discord: переадресация к сервису (state и PKCE, cookie браузера)',
        params: RedirectProviderParams,
        response: { 302: z.null(), ...errorReplies(404, 429) },
      },
      handler: async (req, reply) => {
        const { url, browser } = await service.startRedirect(ctx, req.params.provider, 'login', null, req.ip);
        reply.setCookie(FLOW_COOKIE, browser, privateCookie(ctx.config, req, FLOW_PATH, service.FLOW_TTL_MS));
        return reply.redirect(url, 302);
      },
    });

    app.get('/api/auth/:provider/callback', {
      config: { access: 'public' },
      onRequest: blocked,
      schema: {
        tags,
        summary: 'Возврат от VK ID или Discord: завершает вход (или привязку) и ведёт на страницу сайта',
        params: RedirectProviderParams,
        querystring: CallbackQuery,
        response: { 302: z.null(), ...errorReplies(429) },
      },
      handler: async (req, reply) => {
        reply.clearCookie(FLOW_COOKIE, privateCookie(ctx.config, req, FLOW_PATH));
        const seen: { mode: 'login' | 'link' } = { mode: 'login' };
        try {
          const { outcome: o } = await service.finishRedirect(
            ctx,
            req.params.provider,
            req.query,
            req.cookies[FLOW_COOKIE],
            meta(req),
            seen,
          );
          if (o.status === 'linked') return reply.redirect(PAGES.linked, 302);
          if (o.status === 'signed_in') {
            signIn(req, reply, o);
            return reply.redirect(PAGES.signedIn, 302);
          }
          setTicket(req, reply, o.ticket);
          return reply.redirect(PAGES.pending, 302);
        } catch (e) {
          if (!(e instanceof HttpError)) throw e;
          const code = e.code;
          return reply.redirect(seen.mode === 'link' ? PAGES.linkError(code) : PAGES.loginError(code), 302);
        }
      },
    });

    app.post('/api/auth/telegram', {
      config: { access: 'public' },
      onRequest: blocked,
      schema: {
        tags,
        summary:
          'Вход через Telegram: поля виджета (или oauth.telegram.org) как есть; подпись — HMAC-SHA256 с ключом SHA-256(токен бота), не старше суток',
        body: TelegramAuthBody,
        response: { 200: SocialLoginResult, ...errorReplies(400, 401, 403, 404, 429) },
      },
      handler: async (req, reply) => answer(req, reply, await service.telegramLogin(ctx, req.body, meta(req))),
    });

    app.get('/api/auth/social/pending', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Вход через соцсеть, ждущий в этом браузере кода 2FA или регистрации',
        response: { 200: SocialPending, ...errorReplies(400) },
      },
      handler: async (req) => service.pending(ctx, req.cookies[TICKET_COOKIE]),
    });

    app.post('/api/auth/social/complete', {
      config: { access: 'public' },
      onRequest: blocked,
      schema: {
        tags,
        summary: 'Второй шаг входа через соцсеть: код из приложения-аутентификатора',
        body: SocialCompleteBody,
        response: { 200: SocialLoginResult, ...errorReplies(400, 401, 403, 429) },
      },
      handler: async (req, reply) => {
        const s = await service.complete(ctx, req.cookies[TICKET_COOKIE], req.body.code, meta(req));
        signIn(req, reply, s);
        return { status: 'signed_in' as const, message: service.TEXTS.signedIn };
      },
    });

    app.post('/api/auth/social/register', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => `register:ip:${addressKey(req.ip)}`),
      schema: {
        tags,
        summary:
          'Регистрация через соцсеть: имя в игре и почта. Ответ одинаков, есть ли аккаунт с этой почтой: письмо со ссылкой (или с тем, как привязать сервис к своему аккаунту) уходит на почту.',
        body: SocialRegisterBody,
        response: { 200: MessageResponse, ...errorReplies(400, 409, 429) },
      },
      handler: async (req) => ({
        message: await service.register(ctx, req.cookies[TICKET_COOKIE], req.body, req.ip, req.headers['user-agent'] ?? null),
      }),
    });

    app.get('/api/auth/social/confirm/:token', {
      config: { access: 'public' },
      onRequest: blocked,
      schema: {
        tags,
        summary: 'Ссылка из письма: создаёт аккаунт, привязывает соцсеть, входит и ведёт в профиль',
        params: TokenParams,
        response: { 302: z.null(), ...errorReplies(429) },
      },
      handler: async (req, reply) => {
        const s = await service.confirmRegistration(ctx, req.params.token, meta(req), req.cookies);
        if (!s) return reply.redirect(PAGES.loginError('social_pending_invalid'), 302);
        signIn(req, reply, s);
        return reply.redirect(PAGES.signedIn, 302);
      },
    });

    app.get('/api/user/social', {
      config: { access: 'user' },
      schema: { tags, summary: 'Привязанные соцсети игрока', response: { 200: SocialLinksResponse, ...errorReplies(401) } },
      handler: async (req) => service.links(ctx, userOf(req)),
    });

    app.post('/api/user/social/telegram', {
      config: { access: 'user' },
      onRequest: blocked,
      schema: {
        tags,
        summary: 'Привязать Telegram: поля виджета, как при входе',
        body: TelegramAuthBody,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 404, 409, 429) },
      },
      handler: async (req) => {
        await service.telegramLink(ctx, userOf(req), req.body, req.ip);
        return { message: service.TEXTS.linked };
      },
    });

    app.post('/api/user/social/:provider', {
      config: { access: 'user' },
      onRequest: blocked,
      schema: {
        tags,
        summary: 'Привязать VK ID или Discord: адрес, куда отправить браузер (возврат — на /api/auth/…/callback)',
        params: RedirectProviderParams,
        response: { 200: SocialStartResponse, ...errorReplies(401, 404, 429) },
      },
      handler: async (req, reply) => {
        const { url, browser } = await service.startRedirect(ctx, req.params.provider, 'link', userOf(req), req.ip);
        reply.setCookie(FLOW_COOKIE, browser, privateCookie(ctx.config, req, FLOW_PATH, service.FLOW_TTL_MS));
        return { url };
      },
    });

    app.delete('/api/user/social/:provider', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Отвязать соцсеть (нельзя отвязать последний способ входа)',
        params: SocialProviderParams,
        response: { 200: MessageResponse, ...errorReplies(401, 404, 409) },
      },
      handler: async (req) => {
        await service.unlink(ctx, userOf(req), req.params.provider);
        return { message: service.TEXTS.unlinked };
      },
    });

    app.get('/api/admin/social-settings', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary: 'Ключи входа через соцсети (секреты — только «задан/не задан»)',
        response: { 200: SocialSettingsView, ...errorReplies(401, 403) },
      },
      handler: async () => settingsView(ctx),
    });

    app.put('/api/admin/social-settings', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary:
          'Изменить ключи входа через соцсети; null возвращает значение из переменных окружения. Всё здесь (ID приложений, имя бота, секреты, адреса) меняет только владелец (403 owner_only, поле указано); значение, присланное как есть, — не изменение. Адрес (*_base_url) — https на сервере самого сервиса или адрес из переменной окружения; смена адреса удаляет сохранённый секрет этого сервиса, кроме присланного в том же запросе',
        body: SocialSettingsBody,
        response: { 200: SocialSettingsView, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const user = userOf(req);
        return saveSettings(ctx, req.body, { id: user.id, owner: user.is_admin === 1 });
      },
    });
  };
}
