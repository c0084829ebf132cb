import { AdminReceipt, AdminReceiptsPage, AdminReceiptsQuery, IdParams, PaymentIdParams } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { paymentsService, type PaymentsService } from './payments.service.ts';
import { listReceipts, receiptsJob, registerReceiptHooks, resendReceipt } from './receipts.service.ts';

const tags = ['Чеки (54-ФЗ)'];

/** 54-ФЗ receipts: the runner that sends them, and the owner's «Чеки» list, a payment's receipts and resending. */
export function receiptsRoutes(ctx: AppContext, service: PaymentsService = paymentsService(ctx)): FastifyPluginAsyncZod {
  registerReceiptHooks();
  return async (app) => {
    ctx.jobs.register(ctx.schedule.job(receiptsJob(ctx, () => service.adapters())));

    app.get('/api/admin/receipts', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Чеки: аванс при пополнении, полный расчёт (зачёт аванса) при трате баланса, возврат; фильтры state (pending, sent, succeeded, canceled), kind, payment_id, player; новые сверху, next — курсор',
        querystring: AdminReceiptsQuery,
        response: { 200: AdminReceiptsPage, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => listReceipts(ctx, req.query),
    });

    app.get('/api/admin/payments/:id/receipts', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary: 'Чеки одного пополнения (для карточки платежа)',
        params: PaymentIdParams,
        response: { 200: AdminReceiptsPage, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => listReceipts(ctx, { payment_id: req.params.id }),
    });

    app.post('/api/admin/receipts/:id/resend', {
      config: { access: 'admin', permission: 'payments.refund' },
      schema: {
        tags,
        summary: 'Отправить заново непринятый (canceled) чек полного расчёта: с новым ключом идемпотентности, при следующем проходе',
        params: IdParams,
        response: { 200: AdminReceipt, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const receipt = await resendReceipt(ctx, req.params.id, userOf(req).id);
        ctx.jobs.kick('payments-receipts');
        return receipt;
      },
    });
  };
}
