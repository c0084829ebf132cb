import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, type TestApp } from '../../test/test-app.ts';
import { ClaimQueue } from './claim.ts';

describe.each(dbKinds)('claim helpers on %s', (kind) => {
  let t: TestApp;
  const spec = {
    table: 'mail_outbox' as const,
    leaseMs: 60_000,
    due: (eb: Parameters<ConstructorParameters<typeof ClaimQueue<'mail_outbox'>>[1]['due']>[0], now: number) =>
      eb.and([eb('sent_at', 'is', null), eb('next_attempt_at', '<=', now)]),
  };
  const queue = () => new ClaimQueue(t.handle.db, spec);

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await t.handle.db.deleteFrom('mail_outbox').execute();
    const now = Date.now();
    for (let i = 0; i < 5; i++) {
      await t.handle.db
        .insertInto('mail_outbox')
        .values({
          to_address: `u${i}@example.com`,
          subject: 's',
          text_body: 't',
          html_body: 'h',
          attempts: 0,
          next_attempt_at: now - 1000 + i,
          created_at: now,
        })
        .execute();
    }
    // Not due yet: never claimed.
    await t.handle.db
      .insertInto('mail_outbox')
      .values({
        to_address: 'later@example.com',
        subject: 's',
        text_body: 't',
        html_body: 'h',
        attempts: 0,
        next_attempt_at: now + 3_600_000,
        created_at: now,
      })
      .execute();
  });

  it('two instances claiming at once take disjoint rows, each at most N, oldest first', async () => {
    const [a, b] = await Promise.all([
      queue().claim(3, ['to_address'], { set: { attempts: sql<number>`attempts + 1` } }),
      queue().claim(3, ['to_address']),
    ]);
    const ids = [...a.rows, ...b.rows].map((r) => r.id);
    expect(new Set(ids).size).toBe(5);
    expect(a.rows.length).toBeLessThanOrEqual(3);
    expect(b.rows.length).toBeLessThanOrEqual(3);
    expect(a.token).not.toBe(b.token);
    const locked = await t.handle.db
      .selectFrom('mail_outbox')
      .select(['to_address', 'lock_token', 'locked_until'])
      .where('lock_token', 'is not', null)
      .execute();
    expect(locked.map((r) => r.to_address).sort()).toEqual([
      'u0@example.com',
      'u1@example.com',
      'u2@example.com',
      'u3@example.com',
      'u4@example.com',
    ]);
    // Everything due is claimed: a third instance finds nothing.
    expect((await queue().claim(10, ['id'])).rows).toEqual([]);
    const first = await queue().claim(10, ['id'], { now: Date.now() + 60_001 });
    expect(first.rows.map((r) => r.id)).toEqual([...ids].sort((x, y) => x - y));
  });

  it('records an outcome only while the claim is ours', async () => {
    const mine = queue();
    const { token, rows } = await mine.claim(1, ['to_address']);
    const row = rows[0]!;
    expect(row.to_address).toBe('u0@example.com');
    // The lease ran out and another instance took the row over.
    const other = await queue().claim(1, ['id'], { now: Date.now() + 60_001 });
    expect(other.rows[0]!.id).toBe(row.id);
    expect(await mine.complete(token, row.id, { sent_at: 1 })).toBe(false);
    expect(await queue().complete(other.token, row.id, { sent_at: 2 }, (eb) => eb('sent_at', 'is', null))).toBe(true);
    const stored = await t.handle.db
      .selectFrom('mail_outbox')
      .select(['sent_at', 'lock_token', 'locked_until'])
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ sent_at: 2, lock_token: null, locked_until: null });
  });

  it('claims only the rows `where` allows; records several at once, holding the claim or ending it', async () => {
    const q = queue();
    const { token, rows } = await q.claim(10, ['to_address'], {
      where: (eb) => eb('to_address', 'in', ['u1@example.com', 'u3@example.com']),
    });
    expect(rows.map((r) => r.to_address)).toEqual(['u1@example.com', 'u3@example.com']);
    const ids = rows.map((r) => r.id);
    // A step of the work: the claim holds.
    expect([...(await q.record(token, ids, { attempts: 5 }, { hold: true }))].sort()).toEqual([...ids].sort());
    expect(q.openCount).toBe(2);
    const held = await t.handle.db.selectFrom('mail_outbox').select(['lock_token', 'attempts']).where('id', 'in', ids).execute();
    expect(held).toEqual([
      { lock_token: token, attempts: 5 },
      { lock_token: token, attempts: 5 },
    ]);
    // Only rows still ours and matching `where` are written; the claim ends.
    expect(await q.record('not-ours', ids, { sent_at: 1 })).toEqual(new Set());
    const done = await q.record(token, ids, { sent_at: 2 }, { where: (eb) => eb('to_address', '=', 'u3@example.com') });
    expect(done).toEqual(new Set([ids[1]]));
    expect(q.openCount).toBe(0);
    const stored = await t.handle.db
      .selectFrom('mail_outbox')
      .select(['id', 'sent_at', 'lock_token'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      { id: ids[0], sent_at: null, lock_token: token },
      { id: ids[1], sent_at: 2, lock_token: null },
    ]);
  });

  it('renews a claim and gives one claim back, leaving rows that `where` keeps', async () => {
    const q = queue();
    const now = Date.now();
    const mine = await q.claim(3, ['to_address'], { now });
    const other = await q.claim(1, ['to_address'], { now });
    await q.renew(mine.token, { now: now + 30_000, where: (eb) => eb('to_address', '!=', 'u2@example.com') });
    const leases = await t.handle.db
      .selectFrom('mail_outbox')
      .select(['to_address', 'locked_until'])
      .where('lock_token', 'is not', null)
      .orderBy('id')
      .execute();
    expect(leases.map((r) => [r.to_address, Number(r.locked_until) - now])).toEqual([
      ['u0@example.com', 90_000],
      ['u1@example.com', 90_000],
      ['u2@example.com', 60_000],
      ['u3@example.com', 60_000],
    ]);
    expect(await q.release(mine.token, (eb) => eb('to_address', '!=', 'u0@example.com'))).toBe(2);
    // That claim is closed; the other one is still open.
    expect(q.openCount).toBe(1);
    const locked = await t.handle.db
      .selectFrom('mail_outbox')
      .select('lock_token')
      .where('lock_token', 'is not', null)
      .orderBy('id')
      .execute();
    expect(locked).toEqual([{ lock_token: mine.token }, { lock_token: other.token }]);
  });

  it('release gives back what this process claimed and did not record, and nothing else', async () => {
    const mine = queue();
    const theirs = queue();
    const a = await mine.claim(2, ['id']);
    const b = await theirs.claim(2, ['id']);
    await mine.complete(a.token, a.rows[0]!.id, { sent_at: Date.now() });
    expect(mine.openCount).toBe(1);
    expect(await mine.release()).toBe(1);
    expect(mine.openCount).toBe(0);
    const again = await queue().claim(10, ['id']);
    // The released row and the untouched fifth: not the one sent, not the other instance's.
    expect(again.rows.map((r) => r.id)).toEqual([a.rows[1]!.id, Math.max(...b.rows.map((r) => r.id)) + 1]);
  });
});
