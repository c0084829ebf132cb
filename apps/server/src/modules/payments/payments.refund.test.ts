import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, seedUser, type TestApp } from '../../test/test-app.ts';
import { moveRefund, REFUND_TRANSITIONS, type RefundTransition } from './payments.refund.ts';

describe('the refund state machine', () => {
  it('moves only out of a paid payment: never from pending, canceled or refunded', () => {
    for (const { from } of Object.values(REFUND_TRANSITIONS)) expect(['succeeded', 'refunding']).toContain(from);
  });
});

describe.each(dbKinds)('refund transitions on %s', (kind) => {
  let t: TestApp;
  let userId: number;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    userId = await seedUser(t, 'Steve');
  });
  afterAll(() => t?.close());

  async function payment(status: string): Promise<string> {
    const id = randomUUID();
    const now = Date.now();
    await t.handle.db
      .insertInto('payments')
      .values({
        id,
        user_id: userId,
        provider: 'yookassa',
        amount: 15_000,
        status,
        provider_payment_id: `p-${id}`,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return id;
  }
  const statusOf = async (id: string) =>
    (await t.handle.db.selectFrom('payments').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  it('moves a payment along a transition only from its own status', async () => {
    const moves: [RefundTransition, string, string][] = [
      ['start', 'succeeded', 'refunding'],
      ['paid', 'refunding', 'refunded'],
      ['putBack', 'refunding', 'succeeded'],
      ['wait', 'refunding', 'refunding'],
    ];
    for (const [move, from, to] of moves) {
      for (const other of ['pending', 'canceled', 'succeeded', 'refunding', 'refunded'].filter((s) => s !== from)) {
        const id = await payment(other);
        expect(await moveRefund(t.handle.db, id, move, { updated_at: 1 })).toBe(false);
        expect(await statusOf(id)).toBe(other);
      }
      const id = await payment(from);
      expect(await moveRefund(t.handle.db, id, move, { updated_at: 1 })).toBe(true);
      expect(await statusOf(id)).toBe(to);
    }
  });

  it('of callers racing on one payment, one moves it', async () => {
    const id = await payment('succeeded');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        moveRefund(t.handle.db, id, 'start', { refund_attempts: 1, refund_requested_by: i, updated_at: Date.now() }, (eb) =>
          eb('refund_attempts', '=', 0),
        ),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const row = await t.handle.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'refunding', refund_attempts: 1 });
    // A later move of the same attempt number finds nothing to move.
    expect(await moveRefund(t.handle.db, id, 'putBack', { updated_at: 2 }, (eb) => eb('refund_attempts', '=', 0))).toBe(false);
  });
});
