import { createPublicKey } from 'node:crypto';
import { TEST_SIGNING_KEY } from '../../../../testing/authlib-launcher.ts';
import type { ConfigOverrides } from '../config.ts';
import { reservePort } from '../../../../testing/free-port.ts';
import { createTestApp, type TestApp, type TestDbKind } from './test-app.ts';

/** The site listening on a loopback port (launchers and the game speak HTTP to it), PUBLIC_URL set to it. */
export async function listeningSite(kind: TestDbKind, overrides: ConfigOverrides = {}): Promise<TestApp & { base: string }> {
  const { port, release } = await reservePort();
  const base = `http://127.0.0.1:${port}`;
  let t: TestApp;
  try {
    t = await createTestApp(kind, { publicUrl: base, workers: false, ...overrides });
  } finally {
    await release();
  }
  await t.app.listen({ port, host: '127.0.0.1' });
  return { ...t, base };
}

/** Stores the test key as the site's signing key, as the site would have on its first start. */
export async function seedSigningKey(t: TestApp): Promise<void> {
  const publicPem = createPublicKey(TEST_SIGNING_KEY).export({ type: 'spki', format: 'pem' }).toString();
  await t.handle.db
    .insertInto('site_keys')
    .values({ name: 'yggdrasil', private_pem: TEST_SIGNING_KEY, public_pem: publicPem, created_at: Date.now() })
    .execute();
}

/** Known offline-mode UUIDs (Java's UUID.nameUUIDFromBytes("OfflinePlayer:" + name)). */
export const OFFLINE_UUID: Record<string, string> = {
  Notch: 'b50ad385-829d-3141-a216-7e7d7539ba7f',
  Steve: '5627dd98-e6be-3c21-b8a8-e92344183641',
  jeb_: 'a762f560-4fce-3236-812a-b80efff0b62b',
  Alex: '36532b5e-c442-3dbb-a24c-c7e55d0f979a',
  Dinnerbone: '4d258a81-2358-3084-8166-05b9faccad80',
};
export const bare = (uuid: string) => uuid.replaceAll('-', '');

/** A fetch answer's JSON body, typed for the test's reading. */
export async function jsonOf<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}
