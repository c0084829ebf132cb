import type { Db } from '../db/index.ts';

/**
 * What a restored copy must not do again on its own: the live site may have carried
 * out, after the backup was taken, any delivery that the copy shows as pending or on the wire,
 * and RCON commands cannot be asked whether they ran. So every such delivery is restored as
 * 'unknown' — the queue's existing state for an unclear outcome, which is never resent by itself:
 * the admin checks in the game, then gives it again or refunds (Админ-панель → Доставки).
 * Payments need no such step: a pending one is only ever believed after re-reading the provider,
 * and a refund in progress is asked about again under its own idempotence key; its lease is
 * let go with a note so the admin sees it. Claims of the old processes (leases on letters,
 * periodic jobs, deliveries) are let go, so the restored site does not wait for them to run out.
 */
export const SETTLE_TEXTS = {
  deliveryNote:
    'Восстановлено из резервной копии: выдача могла пройти на сайте уже после копии. Проверьте в игре, затем выдайте повторно или верните деньги.',
  refundNote: 'Восстановлено из резервной копии: возврат мог завершиться после копии — сайт спросит платёжную систему заново.',
  summary: (deliveries: number, refunds: number, pending: number) =>
    `Доставки в пути или в очереди на момент копии: ${deliveries} — помечены «неизвестно: проверьте перед повторной выдачей» (Админ-панель → Доставки). ` +
    `Возвраты в процессе: ${refunds}; ожидающие оплаты: ${pending} — сайт перечитает их у платёжной системы.\n` +
    `Deliveries pending or in flight at backup time: ${deliveries} — marked unknown (check before resending, admin → deliveries). ` +
    `Refunds in progress: ${refunds}; pending payments: ${pending} — re-read from the provider.`,
};

export interface SettleResult {
  deliveries: number;
  refunds: number;
  pendingPayments: number;
}

export async function settleRestoredInFlight(db: Db, now = Date.now()): Promise<SettleResult> {
  return db.transaction().execute(async (trx) => {
    const deliveries = await trx
      .updateTable('deliveries')
      .set({
        state: 'unknown',
        waiting: null,
        last_error: SETTLE_TEXTS.deliveryNote,
        lock_token: null,
        locked_until: null,
        updated_at: now,
      })
      .where('state', 'in', ['pending', 'sent'])
      .executeTakeFirst();
    const refunds = await trx
      .updateTable('payments')
      .set({ refund_lease_until: null, refund_error: SETTLE_TEXTS.refundNote, updated_at: now })
      .where('status', '=', 'refunding')
      .executeTakeFirst();
    const pending = await trx
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    await trx.updateTable('mail_outbox').set({ lock_token: null, locked_until: null }).where('locked_until', 'is not', null).execute();
    await trx.updateTable('job_schedule').set({ lock_token: null, locked_until: null }).where('locked_until', 'is not', null).execute();
    return {
      deliveries: Number(deliveries.numUpdatedRows),
      refunds: Number(refunds.numUpdatedRows),
      pendingPayments: Number(pending.n),
    };
  });
}
