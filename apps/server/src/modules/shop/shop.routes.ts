import {
  AdminDelivery,
  BuyBody,
  BuyResponse,
  CheckoutBody,
  CheckoutResponse,
  PromoParams,
  PromoPreview,
  PromoPreviewQuery,
  ShopListQuery,
  ShopPublicCategories,
  DeliveriesQuery,
  DeliveryActionResponse,
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
import { badRequest, errorReplies } from '../../lib/errors.ts';
import { sendCached } from '../../front-door/http.ts';
import { userOf } from '../../plugins/auth.ts';
import { kickDeliveries } from '../deliveries/deliveries.queue.ts';
import { resendRoute } from '../deliveries/deliveries.routes.ts';
import * as deliveries from '../deliveries/deliveries.service.ts';
import { idempotencyKeyOf, purchaseHeaders } from '../purchases/purchases.http.ts';
import { ledgerRefs } from '../users/users.ports.ts';
import { refundDelivery, REFUND_TEXTS } from './refund.service.ts';
import * as categories from './shop.categories.ts';
import { previewPromo } from '../purchases/purchases.promo.ts';
import * as checkout from './shop.checkout.ts';
import * as shop from './shop.service.ts';

const tags = ['Магазин'];
const adminTags = ['Магазин: администрирование'];

export function shopRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  ledgerRefs.provide('order', shop.orderDetails);
  return async (app) => {
    // Checked in onRequest (plugins/auth.ts): a guest gets 401 before any body is read.
    const user = { config: { access: 'user' as const } };
    const admin = { config: { access: 'admin' as const, permission: 'shop' as const } };

    app.get('/api/shop/all', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Товары в продаже (в том числе закончившиеся); category — только одна категория, q — слова в названии или описании. ' +
          'count: null — без ограничения; old_price и sale_ends_at — пока идёт акция.',
        querystring: ShopListQuery,
        response: { 200: z.array(ShopItem), 304: z.null() },
      },
      handler: async (req, reply) =>
        req.query.category || req.query.q ? shop.searchOnSale(ctx.db, req.query) : sendCached(req, reply, await shop.listOnSaleBody(ctx)),
    });

    app.get('/api/shop/categories', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Вкладки категорий магазина в порядке владельца (только с товарами в продаже) и их акции',
        response: { 200: ShopPublicCategories },
      },
      handler: async () => categories.publicCategories(ctx.db),
    });

    app.get('/api/shop/promo/:code', {
      ...user,
      schema: {
        tags,
        summary:
          'Что даёт промокод этому игроку сейчас; 404 promo_not_found или 409 с причиной. С lines=12x2,13x1 (товар x количество) — ' +
          'ещё и цена этой корзины сейчас (price), скидка по коду (discount) и итог к списанию (total), посчитанные как при покупке; ' +
          'код, который на эти товары или в магазине не действует, получает отказ сразу.',
        params: PromoParams,
        querystring: PromoPreviewQuery,
        response: { 200: PromoPreview, ...errorReplies(400, 401, 404, 409) },
      },
      handler: async (req) => {
        const me = userOf(req);
        const lines = req.query.lines;
        // On lines, refused in the purchase's own order (where it applies before whether it was used).
        const counted = lines ? await checkout.previewLines(ctx, me, req.params.code, lines) : {};
        return { ...(await previewPromo(ctx.db, req.params.code, me.id)), ...counted };
      },
    });

    app.post('/api/shop/checkout', {
      ...user,
      attachValidation: true,
      schema: {
        tags,
        summary:
          'Корзина: все строки, лимиты, промокод и списание с баланса — в одной транзакции; отказ любой строки не меняет ничего. ' +
          'gift_to — подарок игроку (платит покупатель, выдаётся получателю). expected_total — сумма, которую видел игрок: ' +
          'если теперь дороже (акция закончилась), 409 sale_changed. С заголовком Idempotency-Key повтор возвращает первый ответ.',
        headers: purchaseHeaders,
        body: CheckoutBody,
        response: { 200: CheckoutResponse, ...errorReplies(400, 401, 404, 409) },
      },
      handler: async (req) => {
        const me = userOf(req);
        const body = CheckoutBody.safeParse(req.body);
        if (!body.success)
          throw badRequest(body.error.issues[0]?.message ?? shop.TEXTS.badQuantity, {
            code: 'invalid',
            field: body.error.issues[0]?.path.join('.') || undefined,
          });
        const answer = await checkout.checkout(ctx, me, body.data, idempotencyKeyOf(req));
        kickDeliveries(ctx);
        return answer;
      },
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
        response: { 200: BuyResponse, ...errorReplies(400, 401, 404, 409) },
      },
      handler: async (req) => {
        const me = userOf(req);
        const body = BuyBody.safeParse(req.body);
        if (!body.success)
          throw badRequest(body.error.issues[0]?.message ?? shop.TEXTS.badQuantity, {
            code: 'invalid',
            field: body.error.issues[0]?.path.join('.') || undefined,
          });
        const answer = await checkout.buy(ctx, me, body.data, idempotencyKeyOf(req));
        kickDeliveries(ctx);
        return answer;
      },
    });

    app.get('/api/shop/orders', {
      ...user,
      schema: { tags, summary: 'Мои покупки и состояние их выдачи в игре', response: { 200: z.array(ShopOrder), ...errorReplies(401) } },
      handler: async (req) => shop.listOrders(ctx.db, userOf(req).id),
    });

    app.get('/api/shop/admin/all', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Все товары (кроме удалённых)',
        response: { 200: z.array(ShopItemAdmin), ...errorReplies(401, 403) },
      },
      handler: async () => shop.listAll(ctx.db),
    });

    app.get('/api/shop/admin/servers', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Серверы для выбора у товара; rcon — настроена ли выдача; default_server_id — единственный сервер с RCON',
        response: { 200: ShopServersResponse, ...errorReplies(401, 403) },
      },
      handler: async () => shop.shopServers(ctx.db),
    });

    app.post('/api/shop/admin/create', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Новый товар. По умолчанию: категория «Предметы», Minecraft ID stone, статус «Продаётся», сервер — единственный с RCON.',
        body: ShopItemCreateBody,
        response: { 201: ShopItemAdmin, ...errorReplies(400, 401, 403) },
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
        response: { 200: ShopItemAdmin, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => shop.updateItem(ctx, userOf(req), req.params.id, req.body),
    });

    app.delete('/api/shop/admin/:id', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Удалить товар (заказы и выдачи по нему сохраняются)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
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
        response: { 200: z.array(AdminDelivery), ...errorReplies(400, 401, 403) },
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
        response: { 200: DeliveryActionResponse, ...errorReplies(400, 401, 403, 404, 409) },
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
        response: { 200: ShopCategoriesResponse, ...errorReplies(401, 403) },
      },
      handler: async () => ({ categories: await categories.listCategories(ctx.db) }),
    });

    app.post('/api/shop/admin/categories', {
      ...admin,
      schema: {
        tags: adminTags,
        summary: 'Добавить категорию',
        body: ShopCategoryBody,
        response: { 201: ShopCategorySaveResponse, ...errorReplies(400, 401, 403, 409) },
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
        response: { 200: ShopCategorySaveResponse, ...errorReplies(400, 401, 403, 404, 409) },
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
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        await categories.deleteCategory(ctx, userOf(req).id, req.params.id);
        return { message: categories.CATEGORY_TEXTS.deleted };
      },
    });
  };
}
