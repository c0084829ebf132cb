import {
  AuthMeCheckResponse,
  AuthMeEmailBody,
  AuthMeImportBody,
  AuthMeImportView,
  AuthMeRefusalsResponse,
  AuthMeSettingsBody,
  AuthMeView,
  IdParams,
  MessageResponse,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';
import { errorReplies } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { userOf } from '../../plugins/auth.ts';
import { banChanged, linkedAccounts, userErased } from '../users/users.ports.ts';
import * as admin from './authme.admin.ts';
import { giveEmail } from './authme.email.ts';
import { IMPORT_JOB, runImport, takeBackImports } from './authme.import.ts';
import { banStepsJob, outboxJob, queueBanSteps } from './authme.outbox.ts';
import * as repo from './authme.repo.ts';
import { authMeConfig, saveSettings, storedSettings } from './authme.settings.ts';
import { authMeOf, banChangedReaction, closeAuthMe, linkedAccounts as authMeAccounts } from './authme.service.ts';

const tags = ['AuthMe'];

export function authmeRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  linkedAccounts.provide(authMeAccounts);
  banChanged.on('authme', banChangedReaction);
  userErased.on('authme', repo.forgetLinksOf);
  ctx.jobs.register(outboxJob(ctx));
  ctx.jobs.register({
    name: IMPORT_JOB,
    intervalMs: 15_000,
    recover: () => takeBackImports(ctx),
    run: (signal) => runImport(ctx, () => authMeOf(ctx), { signal }),
  });
  ctx.jobs.register(ctx.schedule.job(banStepsJob(ctx)));

  return async (app) => {
    app.addHook('onClose', async () => closeAuthMe(ctx));

    app.get('/api/admin/authme', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary: 'Подключение AuthMe: настройки (адрес базы — только владельцу и без пароля), предупреждения, последний перенос',
        response: { 200: AuthMeView, ...errorReplies(401, 403) },
      },
      handler: async (req) => admin.view(ctx, userOf(req).is_admin === 1),
    });

    app.put('/api/admin/authme', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary:
          'Изменить подключение AuthMe. database_url (mysql://…, postgres://…, sqlite:/путь) меняет только владелец (403 owner_only), он хранится зашифрованным и не показывается; null возвращает значение из AUTHME_DATABASE_URL',
        body: AuthMeSettingsBody,
        response: { 200: AuthMeView, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const user = userOf(req);
        const lockBefore = (await storedSettings(ctx)).lock_on_ban ?? false;
        await saveSettings(ctx, req.body, { id: user.id, owner: user.is_admin === 1 });
        if (req.body.lock_on_ban !== undefined && req.body.lock_on_ban !== lockBefore) await queueBanSteps(ctx);
        return admin.view(ctx, user.is_admin === 1);
      },
    });

    app.post('/api/admin/authme/check', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary:
          'Проверить подключение: соединение, пользователь и пароль, база, таблица и каждый столбец, права на запись, алгоритм и образец хешей',
        response: { 200: AuthMeCheckResponse, ...errorReplies(401, 403) },
      },
      handler: async () => admin.checkConnection(await authMeConfig(ctx)),
    });

    app.delete('/api/admin/authme/warnings', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: { tags, summary: 'Сбросить счётчики предупреждений AuthMe', response: { 200: MessageResponse, ...errorReplies(401, 403) } },
      handler: async () => {
        await repo.clearWarnings(ctx.db);
        return { message: 'Предупреждения сброшены' };
      },
    });

    app.post('/api/admin/authme/imports', {
      config: { access: 'admin', permission: 'owner' as const },
      schema: {
        tags,
        summary:
          'Пробный прогон (dry) или перенос (import) аккаунтов AuthMe: идёт в фоне страницами по 1000, продолжается после перезапуска; повторный перенос ничего не делает дважды',
        body: AuthMeImportBody,
        response: { 200: AuthMeImportView, ...errorReplies(400, 401, 403, 409) },
      },
      handler: async (req) => admin.startImport(ctx, req.body.mode, userOf(req).id),
    });

    app.get('/api/admin/authme/imports/:id', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary: 'Ход переноса или прогона',
        params: IdParams,
        response: { 200: AuthMeImportView, ...errorReplies(401, 403, 404) },
      },
      handler: async (req) => admin.importStatus(ctx, req.params.id),
    });

    app.get('/api/admin/authme/imports/:id/refusals', {
      config: { access: 'admin', permission: 'settings' as const },
      schema: {
        tags,
        summary: 'Имена, которые перенос не взял: правила сайта или имя занято на сайте (первые 200)',
        params: IdParams,
        response: { 200: AuthMeRefusalsResponse, ...errorReplies(401, 403, 404) },
      },
      handler: async (req) => admin.importRefusals(ctx, req.params.id),
    });

    app.post('/api/admin/authme/imports/:id/stop', {
      config: { access: 'admin', permission: 'owner' as const },
      schema: {
        tags,
        summary: 'Остановить перенос или прогон (сделанное остаётся; новый перенос продолжит с пропуском уже перенесённых)',
        params: IdParams,
        response: { 200: AuthMeImportView, ...errorReplies(401, 403, 404) },
      },
      handler: async (req) => admin.stopImport(ctx, req.params.id),
    });

    app.post('/api/authme/email', {
      config: { access: 'public' },
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => `register:ip:${addressKey(req.ip)}`),
      schema: {
        tags,
        summary: 'Почта для аккаунта, перенесённого из игры без неё: имя и пароль проверяются снова, на почту уходит ссылка подтверждения',
        body: AuthMeEmailBody,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 409, 429) },
      },
      handler: async (req) => ({ message: await giveEmail(ctx, req.body, req.ip) }),
    });
  };
}
