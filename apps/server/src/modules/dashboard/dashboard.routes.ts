import { AdminDashboard } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import * as service from './dashboard.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Обзор (администратор)'];

export function dashboardRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/admin/dashboard', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Обзор для /admin: пополнения, покупки и регистрации по дням за 30 дней (дни — в часовом поясе сайта, TIME_ZONE), онлайн сейчас и пик, выдачи, требующие внимания, последние заказы и платежи. Суммы в рублях.',
        response: { 200: AdminDashboard, ...errorReplies(401, 403) },
      },
      handler: async () => service.dashboard(ctx),
    });
  };
}
