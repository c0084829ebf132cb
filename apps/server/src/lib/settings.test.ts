import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, createTestApp, dbKinds, seedUser, startInstance, type TestApp } from '../test/test-app.ts';
import { HttpError } from './errors.ts';
import { defineSettings } from './settings.ts';

const Site = defineSettings({
  key: 'test.site',
  schema: z.object({
    name: z.string().min(1, 'Введите название сайта').max(50, 'Название сайта: не длиннее 50 символов'),
    accent: z.string().regex(/^#[0-9a-f]{6}$/i, 'Цвет: в виде #RRGGBB'),
    links: z.array(z.string()).default([]),
  }),
  defaults: (config) => ({ name: config.siteName, accent: '#3fa34d' }),
});

describe.each(dbKinds)('settings store on %s', (kind) => {
  let t: TestApp;
  let adminId: number;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, siteName: 'Кубик' });
    adminId = await seedUser(t, 'Owner', { admin: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads defaults from the environment config, stores only what the owner set, and audits it', async () => {
    const settings = t.app.ctx.settings;
    expect(await settings.get(Site)).toEqual({ name: 'Кубик', accent: '#3fa34d', links: [] });
    const saved = await settings.set(Site, { accent: '#112233' }, { actorId: adminId });
    expect(saved).toEqual({ name: 'Кубик', accent: '#112233', links: [] });
    expect(await settings.get(Site)).toEqual(saved);
    expect(await settings.stored(Site)).toEqual({ accent: '#112233' });
    const row = await t.handle.db.selectFrom('settings').selectAll().where('key', '=', 'test.site').executeTakeFirstOrThrow();
    expect(JSON.parse(row.value)).toEqual({ accent: '#112233' });
    const audit = await t.handle.db.selectFrom('audit_log').selectAll().where('action', '=', 'settings.update').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: adminId, entity: 'settings', entity_id: 'test.site' });
    expect(JSON.parse(audit[0]!.after_json!)).toEqual({ accent: '#112233' });
    // Back to the default.
    expect(await settings.set(Site, { accent: undefined }, { actorId: adminId })).toMatchObject({ accent: '#3fa34d' });
    expect(await settings.stored(Site)).toEqual({});
  });

  it('refuses a value the schema does not accept and changes nothing', async () => {
    const settings = t.app.ctx.settings;
    await settings.set(Site, { name: 'Мой сервер' }, { actorId: adminId });
    const auditBefore = (await t.handle.db.selectFrom('audit_log').select('id').execute()).length;
    const err = await settings.set(Site, { accent: 'red' }, { actorId: adminId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).toBody()).toEqual({ error: 'Цвет: в виде #RRGGBB', code: 'invalid', field: 'accent' });
    expect(await settings.get(Site)).toMatchObject({ name: 'Мой сервер', accent: '#3fa34d' });
    expect((await t.handle.db.selectFrom('audit_log').select('id').execute()).length).toBe(auditBefore);
  });

  it('two admins saving different fields at once keep both', async () => {
    const settings = t.app.ctx.settings;
    await Promise.all([
      settings.set(Site, { name: 'Один' }, { actorId: adminId }),
      settings.set(Site, { links: ['https://vk.com/kubik'] }, { actorId: adminId }),
    ]);
    expect(await settings.get(Site)).toEqual({ name: 'Один', accent: '#3fa34d', links: ['https://vk.com/kubik'] });
  });

  it('a stored field that no longer fits the schema falls back to its default alone', async () => {
    await t.handle.db
      .updateTable('settings')
      .set({ value: JSON.stringify({ name: 'Старый', accent: 42 }) })
      .where('key', '=', 'test.site')
      .execute();
    const fresh = { ...Site, key: 'test.site' };
    // A new store on the same database: nothing cached yet.
    const { SettingsStore } = await import('./settings.ts');
    const store = new SettingsStore(t.handle.db, t.handle.kind, t.app.ctx.config, t.app.ctx.notifications);
    expect(await store.get(fresh)).toEqual({ name: 'Старый', accent: '#3fa34d', links: [] });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('settings across instances (PostgreSQL)', () => {
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const instances: Awaited<ReturnType<typeof startInstance>>[] = [];

  async function instance(): Promise<FastifyInstance> {
    const started = await startInstance(pgDb.url, { siteName: 'Кубик' });
    instances.push(started);
    return started.app;
  }

  beforeAll(async () => {
    pgDb = await createPgDatabase();
  });
  afterAll(async () => {
    for (const i of instances.splice(0)) await i.close();
    await pgDb?.drop();
  });

  it('a change on one instance shows on the other at once', async () => {
    const one = await instance();
    const two = await instance();
    let heard = 0;
    two.ctx.settings.subscribe(Site.key, () => heard++);
    // Both have it cached.
    expect((await one.ctx.settings.get(Site)).name).toBe('Кубик');
    expect((await two.ctx.settings.get(Site)).name).toBe('Кубик');
    await one.ctx.settings.set(Site, { name: 'Кубик: Выживание' }, { actorId: null });
    await expect.poll(async () => (await two.ctx.settings.get(Site)).name, { timeout: 1000, interval: 10 }).toBe('Кубик: Выживание');
    expect(heard).toBe(1);
    expect(two.ctx.notifications.health()).toEqual({ kind: 'pg', up: true });
  });
});
