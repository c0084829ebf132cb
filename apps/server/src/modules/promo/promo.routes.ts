import { IdParams, PromoCodeAdmin, PromoCodeBody, PromoDisableBody } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { isOwner } from '../../lib/owner-only.ts';
import { userOf } from '../../plugins/auth.ts';
import * as promo from './promo.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Промокоды: администрирование'];

/** Админ-панель → Промокоды (permission 'promo'). Players use codes through the shop, tiers and top-ups. */
export function promoRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const admin = { config: { access: 'admin' as const, permission: 'promo' as const } };
    const editorOf = (req: Parameters<typeof userOf>[0]) => {
      const user = userOf(req);
      return { id: user.id, owner: isOwner(user) };
    };

    app.get('/api/admin/promo-codes', {
      ...admin,
      schema: {
        tags,
        summary: 'Все промокоды, новые сверху, с числом использований и выручкой',
        response: { 200: z.array(PromoCodeAdmin), ...errorReplies(401, 403) },
      },
      handler: async () => promo.listPromos(ctx.db),
    });

    app.post('/api/admin/promo-codes', {
      ...admin,
      schema: {
        tags,
        summary:
          'Новый промокод: percent — скидка в %, fixed — скидка в рублях, topup_bonus — +% к пополнению баланса. ' +
          'applies_to: shop | donate | all; item_ids и category ограничивают товары; max_uses: null — без ограничения; per_player — раз на игрока (1). ' +
          'topup_bonus создаёт, меняет и включает только владелец (403 owner_only, поле kind).',
        body: PromoCodeBody,
        response: { 201: PromoCodeAdmin, ...errorReplies(400, 401, 403, 409) },
      },
      handler: async (req, reply) => reply.code(201).send(await promo.createPromo(ctx.db, editorOf(req), req.body)),
    });

    app.put('/api/admin/promo-codes/:id', {
      ...admin,
      schema: {
        tags,
        summary: 'Изменить промокод (использования сохраняются); код topup_bonus — только владелец (403 owner_only)',
        params: IdParams,
        body: PromoCodeBody,
        response: { 200: PromoCodeAdmin, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => promo.updatePromo(ctx.db, editorOf(req), req.params.id, req.body),
    });

    app.post('/api/admin/promo-codes/:id/disable', {
      ...admin,
      schema: {
        tags,
        summary: 'Выключить (disabled: true) или снова включить промокод; снова включить код topup_bonus может только владелец',
        params: IdParams,
        body: PromoDisableBody,
        response: { 200: PromoCodeAdmin, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => promo.setDisabled(ctx.db, editorOf(req), req.params.id, req.body.disabled),
    });
  };
}
