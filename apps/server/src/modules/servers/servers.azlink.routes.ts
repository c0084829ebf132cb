import { IdParams, ServerLinkAccountsBody, ServerLinkResponse, ServerLinkSettingsBody, ServerSaveResponse } from '@kubik/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import {
  AZLINK_BODY_LIMIT,
  AZLINK_TEXTS,
  AzLinkAnswer,
  AzLinkReport,
  answerFetch,
  callingServer,
  linkServer,
  noteStatusCall,
  saveAccountsSwitch,
  saveLinkSettings,
  unlinkServer,
} from './servers.azlink.ts';
import {
  AzLinkEmail,
  AzLinkPassword,
  AzLinkRegister,
  emailFromGame,
  passwordFromGame,
  registerFromGame,
} from './servers.azlink-accounts.ts';
import type { LinkCaller } from './servers.repo.ts';
import * as service from './servers.service.ts';

const tags = ['Серверы'];
const pluginTags = ['Плагин AzLink'];

/** The calling plugin's server, found before the body is read (a wrong token is refused whatever it sends). */
const callers = new WeakMap<FastifyRequest, LinkCaller>();

export function azlinkRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/servers/:id/link', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary:
          'Подключить плагин AzLink (администратор): новый ключ (показывается один раз, на сайте хранится только его хеш) и команда для консоли сервера `/azlink setup <адрес сайта> <ключ>`. Повторный вызов заменяет ключ.',
        params: IdParams,
        body: z.union([z.strictObject({}), z.null()]).optional(),
        response: { 200: ServerLinkResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req, reply) => {
        const { token, command, row } = await linkServer(ctx, userOf(req).id, req.params.id);
        reply.header('cache-control', 'no-store');
        return { message: AZLINK_TEXTS.linked, token, command, server: service.toAdmin(row) };
      },
    });

    app.delete('/api/servers/:id/link', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary: 'Отключить плагин AzLink (администратор): ключ перестаёт действовать, выдача снова идёт через RCON',
        params: IdParams,
        response: { 200: ServerSaveResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const row = await unlinkServer(ctx, userOf(req).id, req.params.id);
        return { message: AZLINK_TEXTS.unlinked, server: service.toAdmin(row) };
      },
    });

    app.put('/api/servers/:id/link', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary:
          'Настройки плагина AzLink (администратор): способ выдачи (rcon или plugin), мгновенная выдача после покупки (сайт просит плагин забрать команды сразу) и её порт (по умолчанию 25588)',
        params: IdParams,
        body: ServerLinkSettingsBody,
        response: { 200: ServerSaveResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const row = await saveLinkSettings(ctx, userOf(req).id, req.params.id, req.body);
        return { message: AZLINK_TEXTS.settingsSaved, server: service.toAdmin(row) };
      },
    });

    app.put('/api/servers/:id/link/accounts', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary:
          'Аккаунты из игры (только владелец; по умолчанию выключено): регистрация, смена почты и пароля в игре (AuthMe, nLogin) через плагин AzLink создают или меняют аккаунт сайта с тем же именем — кроме аккаунтов сотрудников',
        params: IdParams,
        body: ServerLinkAccountsBody,
        response: { 200: ServerSaveResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const row = await saveAccountsSwitch(ctx, userOf(req).id, req.params.id, req.body.enabled);
        return { message: AZLINK_TEXTS.settingsSaved, server: service.toAdmin(row) };
      },
    });

    // The plugin's calls. The token is checked first (onRequest), before the body is read.
    const authenticate = async (req: FastifyRequest) => {
      callers.set(req, await callingServer(ctx, req.headers['azuriom-link-token']));
    };
    const caller = (req: FastifyRequest) => callers.get(req)!;

    // AzLink drops one final slash of the site's address; an address typed with two still arrives here.
    for (const url of ['/api/azlink', '/api/azlink/']) {
      const hide = url.endsWith('/');
      app.get(url, {
        config: { access: 'public' },
        onRequest: authenticate,
        schema: {
          tags: pluginTags,
          hide,
          summary:
            'Проверка связи плагина AzLink (`/azlink setup`, `/azlink status`): ключ в заголовке Azuriom-Link-Token; нет ключа — 401, неверный — 403',
          response: { 200: z.object({ status: z.literal('ok') }), ...errorReplies(401, 403) },
        },
        handler: async (req, reply) => {
          await noteStatusCall(ctx, caller(req));
          reply.header('cache-control', 'no-store');
          return { status: 'ok' as const };
        },
      });

      app.post(url, {
        config: { access: 'public' },
        bodyLimit: AZLINK_BODY_LIMIT,
        onRequest: authenticate,
        schema: {
          tags: pluginTags,
          hide,
          summary:
            'Ежеминутный вызов плагина AzLink: игроки онлайн, платформа, раз в 15 минут TPS, RAM и CPU. Ответ — команды для консоли по игрокам (не больше 100 за вызов); выдача, попавшая в ответ, считается переданной плагину',
          body: AzLinkReport,
          response: { 200: AzLinkAnswer, ...errorReplies(400, 401, 403, 413) },
        },
        handler: async (req, reply) => {
          reply.header('cache-control', 'no-store');
          return answerFetch(ctx, req.log, caller(req), req.body);
        },
      });
    }

    // In-game accounts (AuthMe, nLogin, LimboAuth on the game server). The password arrives in
    // plain text: these bodies are small, never logged, and the password is hashed first.
    const accountCalls = [
      ['register', AzLinkRegister, registerFromGame, 'Регистрация в игре: новый аккаунт сайта с этим именем и паролем'],
      ['email', AzLinkEmail, emailFromGame, 'Почта, указанная в игре, для аккаунта с этим UUID'],
      ['password', AzLinkPassword, passwordFromGame, 'Пароль, сменённый в игре, для аккаунта с этим UUID'],
    ] as const;
    for (const [path, body, run, summary] of accountCalls) {
      app.post(`/api/azlink/${path}`, {
        config: { access: 'public' },
        bodyLimit: 4096,
        onRequest: authenticate,
        schema: {
          tags: pluginTags,
          summary: `${summary} (плагин AzLink; только если владелец включил аккаунты из игры для этого сервера)`,
          body,
          response: { 200: z.object({ status: z.literal('ok') }), ...errorReplies(400, 401, 403, 409, 413, 429) },
        },
        handler: async (req, reply) => {
          reply.header('cache-control', 'no-store');
          await (run as (c: AppContext, s: LinkCaller, b: unknown) => Promise<void>)(ctx, caller(req), req.body);
          return { status: 'ok' as const };
        },
      });
    }
  };
}
