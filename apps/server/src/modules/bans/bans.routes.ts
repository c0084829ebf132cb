import {
  BanBody,
  BanCommandsBody,
  BanListQuery,
  BanSourceBody,
  BanSourceCheck,
  BanSourceView,
  BanRecord,
  BanResponse,
  BanServerCommands,
  IdParams,
  MessageResponse,
  PublicBansPage,
  PublicBansQuery,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import * as service from './bans.service.ts';
import { publicBanPage } from './bans.public.ts';
import { checkSource, closeExternalSource, externalSource, saveSource, sourceView } from './bans.source.ts';
import { PluginDbError } from './bans.plugin-db.ts';
import { errorReplies } from '../../lib/errors.ts';
import { isOwner } from '../../lib/owner-only.ts';
import { addressKey } from '../../lib/rate-limit.ts';

/** Searches of /bans one address may make in a rate-limit window (RATE_LIMIT_WINDOW_SEC). */
const PUBLIC_BANS_SEARCHES_PER_WINDOW = 300;

const tags = ['Баны'];

export function bansRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    ctx.jobs.register(ctx.schedule.job(service.banExpiryJob(ctx)));
    const admin = { config: { access: 'admin' as const, permission: 'bans' as const } };

    app.get('/api/bans', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Публичный список наказаний (/bans): баны сайта и, если подключён, LiteBans; новые первыми, по 20 на страницу, поиск по началу имени (q). kind — ban, mute, kick или warning. Только публичная причина: ни заметок, ни IP-адресов, ни тихих наказаний',
        querystring: PublicBansQuery,
        response: { 200: PublicBansPage, ...errorReplies(400, 429) },
      },
      handler: async (req) => {
        // A search by name is the one read that is not a single indexed step (and on the plugin's database): counted per address.
        if (req.query.q) await ctx.limiter.hit(`bans:search:${addressKey(req.ip)}`, PUBLIC_BANS_SEARCHES_PER_WINDOW);
        const external = await externalSource(ctx);
        try {
          return await publicBanPage(ctx, req.query, external);
        } catch (err) {
          if (!(err instanceof PluginDbError)) throw err;
          // The game plugin's database is down: the site's own bans are still shown.
          req.log.warn({ err: err.message }, 'ban list: the game plugin database failed');
          return publicBanPage(ctx, req.query, null);
        }
      },
    });

    app.addHook('onClose', async () => closeExternalSource(ctx));

    app.get('/api/admin/bans/source', {
      ...admin,
      schema: {
        tags,
        summary:
          'Плагин наказаний, чьи баны, муты, кики и предупреждения показывает /bans (LiteBans или AdvancedBan); адрес базы — только владельцу и без пароля',
        response: { 200: BanSourceView, ...errorReplies(401, 403) },
      },
      handler: async (req) => sourceView(ctx, isOwner(userOf(req))),
    });

    app.put('/api/admin/bans/source', {
      ...admin,
      schema: {
        tags,
        summary:
          'Подключить плагин наказаний: { plugin, database_url, table_prefix }. database_url (mysql://… или postgres://…, только чтение) меняет только владелец (403 owner_only); хранится зашифрованным и не показывается; null отключает',
        body: BanSourceBody,
        response: { 200: BanSourceView, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const user = userOf(req);
        await saveSource(ctx, req.body, { id: user.id, owner: isOwner(user) });
        return sourceView(ctx, isOwner(user));
      },
    });

    app.post('/api/admin/bans/source/check', {
      ...admin,
      schema: {
        tags,
        summary: 'Проверить подключение к базе плагина наказаний: соединение, пользователь и пароль, каждая таблица',
        response: { 200: BanSourceCheck, ...errorReplies(401, 403) },
      },
      handler: async () => checkSource(ctx),
    });

    app.post('/api/admin/users/:id/ban', {
      ...admin,
      schema: {
        tags,
        summary:
          'Заблокировать игрока: { reason, until } — until в мс или null (навсегда). Завершает сеансы сайта и входы в игру, пишет в журнал и отправляет команду бана на серверы, где она задана. Повторный вызов меняет причину и срок. Администратора (и себя) заблокировать нельзя (409).',
        params: IdParams,
        body: BanBody,
        response: { 200: BanResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => service.banUser(ctx, userOf(req), req.params.id, req.body),
    });

    app.delete('/api/admin/users/:id/ban', {
      ...admin,
      schema: {
        tags,
        summary: 'Снять блокировку досрочно; на серверы, где задана команда разбана, она отправляется',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => ({ message: await service.unbanUser(ctx, userOf(req), req.params.id) }),
    });

    app.get('/api/admin/bans', {
      ...admin,
      schema: {
        tags,
        summary: 'Блокировки, новые первыми (до 500): active=1 — только действующие; user_id — одного игрока',
        querystring: BanListQuery,
        response: { 200: z.array(BanRecord), ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.listBans(ctx, { active: req.query.active === '1', userId: req.query.user_id }),
    });

    app.get('/api/admin/bans/commands', {
      ...admin,
      schema: {
        tags,
        summary: 'Команды бана и разбана по серверам (подстановки {player}, {uuid}, {reason}, {until}, {duration})',
        response: { 200: z.array(BanServerCommands), ...errorReplies(401, 403) },
      },
      handler: async () => service.banCommands(ctx),
    });

    app.put('/api/admin/bans/commands/:id', {
      ...admin,
      schema: {
        tags,
        summary: 'Задать команды бана и разбана сервера (id — номер сервера); пустая строка или null — не отправлять',
        params: IdParams,
        body: BanCommandsBody,
        response: { 200: BanServerCommands, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => service.setBanCommands(ctx, userOf(req), req.params.id, req.body),
    });
  };
}
