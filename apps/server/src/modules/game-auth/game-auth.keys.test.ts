import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKey } from '../../../../../testing/authlib-launcher.ts';
import { buildApp } from '../../app.ts';
import { createTestApp, dbKinds, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('the Yggdrasil signing key on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is made once, on first use, 4096 bits, kept in the database and shared by every instance', async () => {
    expect(await t.handle.db.selectFrom('site_keys').selectAll().execute()).toEqual([]);
    const [a, b] = await Promise.all([
      t.app.inject({ method: 'GET', url: '/api/yggdrasil/' }),
      t.app.inject({ method: 'GET', url: '/api/yggdrasil/' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    const pem = a.json().signaturePublickey;
    expect(b.json().signaturePublickey).toBe(pem);
    expect(parsePublicKey(pem).asymmetricKeyDetails?.modulusLength).toBe(4096);

    const rows = await t.handle.db.selectFrom('site_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.public_pem).toBe(pem);
    expect(rows[0]!.private_pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);

    // Another instance on the same database signs with the same key.
    const other = await buildApp(t.app.ctx.config, { database: t.handle });
    try {
      const res = await other.inject({ method: 'GET', url: '/api/yggdrasil' });
      expect(res.statusCode).toBe(200);
      expect(res.json().signaturePublickey).toBe(pem);
    } finally {
      await other.close();
    }
  }, 120_000);
});
