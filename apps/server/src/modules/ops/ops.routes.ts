import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { pendingMigrations } from '../../db/migrate.ts';
import * as repo from './ops.repo.ts';

const tags = ['Эксплуатация'];
const Check = z.string().describe('"ok" или причина по-русски');
const Ready = z.object({ status: z.literal('ok'), checks: z.object({ database: Check, migrations: Check, notifications: Check }) });
const NotReady = z.object({
  status: z.literal('unavailable'),
  error: z.string(),
  code: z.literal('not_ready'),
  checks: Ready.shape.checks,
});
const DB_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`нет ответа за ${ms / 1000} с`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * /healthz (the process answers) and /readyz (it can serve: database, migrations, the PostgreSQL
 * notification channel); /metrics is plugins/metrics.ts. Outside /api: proxies and orchestrators
 * probe them, no browser does.
 */
export function opsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Payments by status, once the payments feature's table exists (the query finds it on each scrape until then).
    let paymentsTable = false;
    ctx.metrics.gauge({
      name: 'kubik_payments',
      help: 'Payments by status',
      labelNames: ['status'],
      read: async () => {
        if (!paymentsTable) {
          paymentsTable = await repo.paymentsTableExists(ctx.db, ctx.dbKind);
          if (!paymentsTable) return [];
        }
        const rows = await repo.paymentsByStatus(ctx.db);
        return rows.map((r) => ({ labels: { status: r.status }, value: Number(r.n) }));
      },
    });

    app.get(
      '/healthz',
      {
        config: { access: 'public' },
        schema: { tags, summary: 'Процесс жив и отвечает', response: { 200: z.object({ status: z.literal('ok') }) } },
      },
      async (_req, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'ok' as const };
      },
    );

    // Migrations only ever move forward with new code: once none is pending, this process's answer stays.
    let migrated = false;
    app.get(
      '/readyz',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary:
            'Готов принимать запросы: база доступна, миграции применены, канал уведомлений PostgreSQL на связи (иначе 503 с причиной)',
          response: { 200: Ready, 503: NotReady },
        },
      },
      async (_req, reply) => {
        reply.header('cache-control', 'no-store');
        const checks = { database: 'ok', migrations: 'ok', notifications: 'ok' };
        const problems: string[] = [];
        try {
          await withTimeout(repo.pingDatabase(ctx.db), DB_TIMEOUT_MS);
          if (!migrated) {
            const pending = await withTimeout(pendingMigrations(ctx.db), DB_TIMEOUT_MS);
            migrated = pending.length === 0;
            if (!migrated) checks.migrations = `не применены: ${pending.join(', ')}`;
          }
        } catch (err) {
          checks.database = `недоступна: ${err instanceof Error ? err.message : String(err)}`;
          checks.migrations = 'не проверены: база недоступна';
        }
        // The database answers but the LISTEN connection is still down (its retry is due in up to a
        // second): try it now, so readiness follows the database within a probe.
        if (checks.database === 'ok' && !ctx.notifications.up) await withTimeout(ctx.notifications.reconnectNow(), 1500).catch(() => {});
        const channel = ctx.notifications.health();
        if (!channel.up)
          checks.notifications = 'нет связи с PostgreSQL (LISTEN/NOTIFY): кэши этого процесса не узнают об изменениях на других';
        if (checks.database !== 'ok') problems.push(`База данных ${checks.database}`);
        else if (checks.migrations !== 'ok') problems.push(`Миграции ${checks.migrations}`);
        if (checks.notifications !== 'ok') problems.push(`Канал уведомлений: ${checks.notifications}`);
        if (problems.length === 0) return { status: 'ok' as const, checks };
        return reply.code(503).send({ status: 'unavailable' as const, error: problems.join('. '), code: 'not_ready' as const, checks });
      },
    );
  };
}
