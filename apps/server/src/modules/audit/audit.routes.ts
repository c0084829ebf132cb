import { AuditPage, AuditQuery } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { readAuditPage } from './audit.repo.ts';

const tags = ['Журнал изменений'];

export function auditRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/admin/audit', {
      config: { access: 'admin', permission: 'audit' },
      schema: {
        tags,
        summary: 'Журнал изменений администраторов: кто, когда, что, до и после; новые первыми, по страницам',
        querystring: AuditQuery,
        response: { 200: AuditPage, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const { page, per_page: perPage, entity } = req.query;
        const { entries, total } = await readAuditPage(ctx.db, page, perPage, entity);
        return { entries, total, page, per_page: perPage };
      },
    });
  };
}
