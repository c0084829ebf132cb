import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, seedUser, type TestApp } from '../../test/test-app.ts';
import { notify, notifyAll } from './notices.service.ts';

describe.each(dbKinds)('notices on %s', (kind) => {
  let t: TestApp;
  let alice: number;
  let bob: number;

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false } });
    alice = await seedUser(t, 'Alice');
    bob = await seedUser(t, 'Bob');
  });
  afterAll(async () => {
    await t?.close();
  });

  const rows = (userId: number) => t.handle.db.selectFrom('notices').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  it('notify() writes in the caller’s transaction and a rollback takes it back', async () => {
    await t.handle.db
      .transaction()
      .execute((trx) => notify(trx, alice, { kind: 'message', title: 'Привет', body: 'Текст', link: '/profile', data: { a: 1 } }));
    await expect(
      t.handle.db.transaction().execute(async (trx) => {
        await notify(trx, alice, { kind: 'message', title: 'Не будет' });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const mine = await rows(alice);
    expect(mine.map((r) => r.title)).toEqual(['Привет']);
    expect(mine[0]).toMatchObject({ kind: 'message', body: 'Текст', link: '/profile', data_json: '{"a":1}', read_at: null });
  });

  it('notifyAll() gives every account one row', async () => {
    const sent = await t.handle.db.transaction().execute((trx) => notifyAll(trx, { kind: 'message', title: 'Всем', body: null }));
    expect(sent).toBe(2);
    expect((await rows(bob)).map((r) => [r.title, r.body, r.kind])).toEqual([['Всем', null, 'message']]);
    expect((await rows(alice)).at(-1)?.title).toBe('Всем');
  });
});
