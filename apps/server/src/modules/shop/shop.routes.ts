import {
  AdminDelivery,
  BuyBody,
  BuyResponse,
  DeliveriesQuery,
  DeliveryActionResponse,
  ErrorResponse,
  IdParams,
  MessageResponse,
  ShopItem,
  ShopItemAdmin,
  ShopItemCreateBody,
  ShopItemUpdateBody,
  ShopOrder,
  ShopCategoriesResponse,
  ShopCategoryBody,
  ShopCategorySaveResponse,
  ShopServersResponse,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { sendCached } from '../../lib/public-cache.ts';
import { userOf } from '../../plugins/auth.ts';
import { kickDeliveries } from '../deliveries/deliveries.queue.ts';
import { resendRoute } from '../deliveries/deliveries.routes.ts';
import * as deliveries from '../deliveries/deliveries.service.ts';
import { idempotencyKeyOf, purchaseHeaders } from '../purchases/purchases.http.ts';
import { ledgerRefs } from '../users/users.ports.ts';
import { refundDelivery, REFUND_TEXTS } from './refund.service.ts';
import * as categories from './shop.categories.ts';
import * as shop from './shop.service.ts';

const tags = ['Магазин'];
const adminTags = ['Магазин: администрирование'];
const err = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorResponse]));

export function shopRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  ledgerRefs.provide('order', shop.orderDetails);
  return async (app) => {
    // Checked in onRequest (plugins/auth.ts): a guest gets 401 before any body is read.
    const user = { config: { access: 'user' as const } };
    const admin = { config: { access: 'admin' as const } };

    app.get('/api/shop/all', {
      config: { access: 'public' },
      schema: { tags, summary: 'Товары в продаже (в том числе закончившиеся)', response: { 200: z.array(ShopItem), 304: z.null() } },
      handler: async (req, reply) => sendCached(req, reply, await shop.listOnSaleBody(ctx)),
    });

    app.post('/api/shop/buy', {
      ...user,
      // Checked in the handler, so that the answer is the bare text the client shows ('Введите корректное количество').
      attachValidation: true,
      schema: {
        tags,
        summary:
          'Покупка: списывает цену × количество с баланса, уменьшает остаток и ставит выдачу в игре в очередь — всё в одной транзакции. ' +
          'С заголовком Idempotency-Key повторный запрос с тем же ключом возвращает первый ответ, а не покупает ещё раз.',
        headers: purchaseHeaders,
        body: BuyBody,
        response: { 200: BuyResponse, ...err(400, 401, 404, 409) },
      },
      handler: async (req) => {
        const me = userOf(req);
        const body = BuyBody.safeParse(req.body);
        if (!body.success)
          throw badRequest(body.error.issues[0]?.message ?? shop.TEXTS.badQuantity, {
            code: 'invalid',
            field: body.error.issues[0]?.path.join('.') || undefined,
          });
        const answer = await shop.buy(ctx, me, body.data, idempotencyKeyOf(req));
        kickDeliveries(ctx);
        return answer;
      },
    });

    app.get('/api/shop/orders', {
      ...user,
      schema: { tags, summary: 'Мои покупки и состояние их выдачи в игре', response: { 200: z.array(ShopOrder), ...err(401) } },
      handler: async (req) => shop.listOrders(ctx.db, userOf(req).id),
    });

    app.get('/api/shop/admin/all', {
      ...admin,
      schema: { tags: adminTags, summary: 'Все товары (кроме удалённых)', response: { 200: z.array(ShopItemAdmin), ...err(401, 403) } },
      handler: async () => shop.listAll(ctx.db),
    });

    app.get('/api/shop/admin/servers', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Серверы для выбора у товара; rcon — настроена ли выдача; default_server_id — единственный сервер с RCON',
        response: { 200: ShopServersResponse, ...err(401, 403) },
      },
      handler: async () => shop.shopServers(ctx.db),
    });

    app.post('/api/shop/admin/create', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Новый товар. По умолчанию: категория «Предметы», Minecraft ID stone, статус «Продаётся», сервер — единственный с RCON.',
        body: ShopItemCreateBody,
        response: { 201: ShopItemAdmin, ...err(400, 401, 403) },
      },
      handler: async (req, reply) => reply.code(201).send(await shop.createItem(ctx, userOf(req), req.body)),
    });

    app.put('/api/shop/admin/:id', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Изменить товар (любые из полей)',
        params: IdParams,
        body: ShopItemUpdateBody,
        response: { 200: ShopItemAdmin, ...err(400, 401, 403, 404) },
      },
      handler: async (req) => shop.updateItem(ctx, userOf(req), req.params.id, req.body),
    });

    app.delete('/api/shop/admin/:id', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Удалить товар (заказы и выдачи по нему сохраняются)',
        params: IdParams,
        response: { 200: MessageResponse, ...err(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await shop.deleteItem(ctx, userOf(req), req.params.id);
        return { message: shop.TEXTS.deleted };
      },
    });

    // «Выдача в игре» of the shop: the delivery queue's shop rows (every source: /api/admin/deliveries).
    app.get('/api/shop/admin/deliveries', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Выдачи покупок в игре: состояние, команда и ответ сервера (новые сверху)',
        querystring: DeliveriesQuery,
        response: { 200: z.array(AdminDelivery), ...err(400, 401, 403) },
      },
      handler: async (req) => deliveries.listDeliveries(ctx.db, { ...req.query, source: req.query.source ?? 'shop' }),
    });

    app.post('/api/shop/admin/deliveries/:id/resend', resendRoute(ctx, 'Выдать повторно (то же, что /api/admin/deliveries/{id}/resend)'));

    app.post('/api/shop/admin/deliveries/:id/refund', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Вернуть деньги за невыданную покупку (один раз): запись «refund» в журнале баланса, товар возвращается на склад',
        params: IdParams,
        response: { 200: DeliveryActionResponse, ...err(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const { delivery, newBalance } = await refundDelivery(ctx, userOf(req).id, req.params.id);
        return { message: REFUND_TEXTS.refunded, delivery, new_balance: newBalance };
      },
    });

    app.get('/api/shop/admin/categories', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Категории товаров в их порядке, с числом товаров в каждой',
        response: { 200: ShopCategoriesResponse, ...err(401, 403) },
      },
      handler: async () => ({ categories: await categories.listCategories(ctx.db) }),
    });

    app.post('/api/shop/admin/categories', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Добавить категорию',
        body: ShopCategoryBody,
        response: { 201: ShopCategorySaveResponse, ...err(400, 401, 403, 409) },
      },
      handler: async (req, reply) =>
        reply
          .code(201)
          .send({ message: categories.CATEGORY_TEXTS.created, category: await categories.createCategory(ctx, userOf(req).id, req.body) }),
    });

    app.put('/api/shop/admin/categories/:id', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Переименовать категорию (товары переходят вместе с ней) или изменить порядок',
        params: IdParams,
        body: ShopCategoryBody,
        response: { 200: ShopCategorySaveResponse, ...err(400, 401, 403, 404, 409) },
      },
      handler: async (req) => ({
        message: categories.CATEGORY_TEXTS.updated,
        category: await categories.updateCategory(ctx, userOf(req).id, req.params.id, req.body),
      }),
    });

    app.delete('/api/shop/admin/categories/:id', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Удалить пустую категорию',
        params: IdParams,
        response: { 200: MessageResponse, ...err(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        await categories.deleteCategory(ctx, userOf(req).id, req.params.id);
        return { message: categories.CATEGORY_TEXTS.deleted };
      },
    });
  };
}
