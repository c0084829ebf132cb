import {
  MessageResponse,
  SecuritySettingsBody,
  TwoFactorDisableBody,
  TwoFactorEnableBody,
  TwoFactorEnableResponse,
  TwoFactorSetupResponse,
  TwoFactorStatus,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { SecuritySettings } from './security.settings.ts';
import { secondFactor, userErased } from '../users/users.ports.ts';
import { forgetTwoFactor } from './two-factor.repo.ts';
import * as service from './two-factor.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Двухфакторная защита'];

export function twoFactorRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  secondFactor.provide(service.secondFactorCheck);
  userErased.on('security', forgetTwoFactor);
  return async (app) => {
    app.get('/api/user/2fa', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Включена ли двухфакторная защита, сколько кодов восстановления осталось, требует ли её админ-панель',
        response: { 200: TwoFactorStatus, ...errorReplies(401) },
      },
      handler: (req) => service.status(ctx, userOf(req)),
    });

    app.post('/api/user/2fa/setup', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Новый секрет для приложения-аутентификатора (TOTP, 6 цифр, 30 секунд) и QR-код; защита включится после POST /api/user/2fa/enable с кодом из приложения',
        response: { 200: TwoFactorSetupResponse, ...errorReplies(401, 409) },
      },
      handler: (req) => service.setup(ctx, userOf(req)),
    });

    app.post('/api/user/2fa/enable', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Включить защиту кодом из приложения; ответ — 10 одноразовых кодов восстановления (показываются один раз)',
        body: TwoFactorEnableBody,
        response: { 200: TwoFactorEnableResponse, ...errorReplies(400, 401, 409, 429) },
      },
      handler: (req) => service.enable(ctx, userOf(req), req.body.code),
    });

    app.post('/api/user/2fa/disable', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Отключить защиту: нужны пароль и код из приложения (или код восстановления)',
        body: TwoFactorDisableBody,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 429) },
      },
      handler: async (req) => {
        await service.disable(ctx, userOf(req), req.body.password, req.body.code);
        return { message: service.TWO_FACTOR_TEXTS.disabled };
      },
    });

    app.delete('/api/admin/users/:id/2fa', {
      config: { access: 'admin', permission: 'players.balance' },
      schema: {
        tags,
        summary:
          'Сбросить двухфакторную защиту игрока (потерял и телефон, и коды восстановления): он войдёт по паролю; его сеансы и входы лаунчеров завершаются',
        params: z.object({
          id: z.coerce
            .number({ error: 'Некорректный номер игрока' })
            .int('Некорректный номер игрока')
            .min(1, 'Некорректный номер игрока')
            .max(2_147_483_647, 'Некорректный номер игрока'),
        }),
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await service.resetByAdmin(ctx, userOf(req), req.params.id);
        return { message: service.TWO_FACTOR_TEXTS.resetDone };
      },
    });

    app.get('/api/admin/security', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Настройки безопасности: обязательна ли двухфакторная защита администраторам',
        response: { 200: SecuritySettingsBody, ...errorReplies(401, 403) },
      },
      handler: () => ctx.settings.get(SecuritySettings),
    });

    app.put('/api/admin/security', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Изменить настройки безопасности. Потребовать защиту у администраторов можно, только включив её у себя.',
        body: SecuritySettingsBody,
        response: { 200: SecuritySettingsBody, ...errorReplies(400, 401, 403, 409) },
      },
      handler: (req) => service.setSecuritySettings(ctx, userOf(req), req.body),
    });
  };
}
