import type { AppContext } from '../../context.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { resumeRefunds } from './payments.refund.ts';
import { cancelPending, pendingToCheck, recordEvent } from './payments.repo.ts';
import { PAYMENT_EXPIRY_MS, type PaymentsService } from './payments.service.ts';

const BATCH = 200;

/**
 * One reconciliation pass: every payment still pending is re-read from its provider (so a lost
 * notification still credits), and one pending for 24 h is canceled; refunds left «refunding»
 * (no answer, or pending at the provider) are asked about again. Returns what it did.
 */
export async function reconcilePayments(
  ctx: AppContext,
  service: PaymentsService,
  now = Date.now(),
  signal?: AbortSignal,
): Promise<{ checked: number; expired: number; failed: number; refunds: number }> {
  const rows = await pendingToCheck(ctx.db, BATCH);
  let checked = 0;
  let expired = 0;
  let failed = 0;
  const adapters = await service.adapters();
  for (const row of rows) {
    if (signal?.aborted) break;
    const adapter = adapters[row.provider as keyof typeof adapters];
    if (!adapter) continue;
    // A provider with no API to ask (ЮMoney without a token) is only waited for, then expired.
    if (adapter.canFetch) {
      try {
        await service.refresh(row);
        checked += 1;
      } catch {
        failed += 1;
      }
    }
    if (now - Number(row.created_at) >= PAYMENT_EXPIRY_MS) {
      if (await cancelPending(ctx.db, row.id, Date.now())) {
        expired += 1;
        await recordEvent(ctx.db, { paymentId: row.id, provider: row.provider, kind: 'expire', outcome: 'не оплачен за 24 часа: отменён' });
      }
    }
  }
  const refunds = signal?.aborted ? 0 : await resumeRefunds(ctx, adapters, signal);
  return { checked, expired, failed, refunds };
}

export function reconcileJob(ctx: AppContext, service: PaymentsService): ScheduledJobSpec {
  return {
    name: 'payments-reconcile',
    everyMs: ctx.config.payments.reconcileMs,
    run: (signal) => reconcilePayments(ctx, service, Date.now(), signal),
  };
}
