import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, pixelHash, type Rgba } from '../../lib/skin/skin-image.ts';
import {
  blank,
  chunk,
  chunkTypes,
  fill,
  multipart,
  pixelAt,
  pngBomb,
  toPng,
  withChunksAfterHeader,
} from '../../../../../testing/skin-images.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

const capeForm = (file: Buffer, title: string | null = 'Плащ', type = 'image/png') =>
  multipart([...(title === null ? [] : [{ name: 'title', data: title }]), { name: 'cape', filename: 'cape.png', type, data: file }]);

/** A cape image of the given size: opaque red where the cape is, a blue pixel in its corner. */
function capeImage(width: number, height: number, colour: readonly [number, number, number, number] = [200, 20, 20, 255]): Rgba {
  const img = fill(blank(width, height), 0, 0, width, height, colour);
  return fill(img, 0, 0, 1, 1, [0, 0, 255, 255]);
}

describe.each(dbKinds)('capes on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Wearer');
    admin = await loginAs(t, 'Owner');
    player = await loginAs(t, 'Wearer');
  });
  afterAll(async () => {
    await t?.close();
  });

  const upload = (token: string | null, form: { payload: Buffer; headers: Record<string, string> }) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/admin/capes', payload: form.payload, headers: form.headers }));
  const call = (token: string | null, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject(asUser(token, { method, url, ...(payload !== undefined ? { payload: payload as object } : {}) }));
  const capeCount = async () => (await t.handle.db.selectFrom('capes').select('id').execute()).length;
  let seq = 0;

  async function uploaded(
    width: number,
    height: number,
    title?: string,
  ): Promise<{ id: number; url: string; width: number; height: number }> {
    seq += 1;
    const res = await upload(
      admin,
      capeForm(await toPng(capeImage(width, height, [(seq * 7) % 256, 100, 50, 255])), title ?? `Плащ ${seq}`),
    );
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  it('takes 64×32 and HD multiples as they are, and pads 22×17 and 46×23 (and multiples) to the 64×32 layout', async () => {
    for (const [w, h, W, H] of [
      [64, 32, 64, 32],
      [128, 64, 128, 64],
      [512, 256, 512, 256],
      [22, 17, 64, 32],
      [44, 34, 128, 64],
      [46, 23, 64, 32],
    ] as const) {
      const img = capeImage(w, h, [w % 256, h % 256, 77, 255]);
      const file = withChunksAfterHeader(await toPng(img), chunk('tEXt', Buffer.from('Comment\0secret note')));
      const res = await upload(admin, capeForm(file, `Плащ ${w}×${h}`));
      expect(res.statusCode, `${w}×${h}: ${res.body}`).toBe(200);
      const cape = res.json();
      expect(cape).toMatchObject({ title: `Плащ ${w}×${h}`, width: W, height: H, grants: [] });
      expect(cape.url).toMatch(/^\/textures\/[0-9a-f]{64}$/);

      const served = await t.app.inject({ method: 'GET', url: cape.url });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(chunkTypes(served.rawPayload)).not.toContain('tEXt');
      const px = await decodePng(served.rawPayload);
      expect([px.width, px.height]).toEqual([W, H]);
      expect(cape.url).toBe(`/textures/${pixelHash(px)}`);
      expect(pixelAt(px, 0, 0)).toEqual([0, 0, 255, 255]);
      expect(pixelAt(px, w - 1, h - 1)).toEqual([w % 256, h % 256, 77, 255]);
      if (W !== w) expect(pixelAt(px, W - 1, H - 1)).toEqual([0, 0, 0, 0]);
    }
  });

  it('refuses what is not a cape, on the header before decoding, and stores nothing', async () => {
    const before = await capeCount();
    const refused = async (res: LightMyRequestResponse, status: number, text: string) => {
      expect(res.statusCode, res.body).toBe(status);
      expect(errorOf(res)).toBe(text);
      expect(await capeCount()).toBe(before);
    };
    const size = (w: number, h: number) =>
      `Неподходящий размер плаща: ${w}×${h}. Нужен 64×32 (HD: 128×64 … 512×256), 22×17 или 46×23 и их кратные`;
    await refused(await upload(admin, capeForm(await toPng(capeImage(64, 64)))), 400, size(64, 64));
    await refused(await upload(admin, capeForm(await toPng(capeImage(65, 32)))), 400, size(65, 32));
    await refused(await upload(admin, capeForm(await toPng(capeImage(1024, 512)))), 400, size(1024, 512));
    // Refused from the header: decoding 32768×16384 would take 2 GiB (a time bound here only measured the machine's load;
    // the process's other work moves RSS by tens of MB, so the bound is a tenth of what decoding would take).
    const rss = process.memoryUsage().rss;
    await refused(await upload(admin, capeForm(pngBomb(32768, 16384))), 400, size(32768, 16384));
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
    const jpeg = await sharp(capeImage(64, 32).data, { raw: { width: 64, height: 32, channels: 4 } })
      .jpeg()
      .toBuffer();
    await refused(await upload(admin, capeForm(jpeg)), 415, 'Плащ должен быть PNG-изображением');
    await refused(
      await upload(admin, capeForm(Buffer.concat([await toPng(capeImage(64, 32)), Buffer.alloc(300 * 1024)]))),
      413,
      'Файл плаща слишком большой: не больше 256 КБ',
    );
    await refused(await upload(admin, capeForm(await toPng(capeImage(64, 32)), null)), 400, 'Введите название плаща');
    await refused(await upload(admin, capeForm(await toPng(capeImage(64, 32)), ' ')), 400, 'Введите название плаща');
    await refused(await upload(admin, multipart([{ name: 'title', data: 'x' }])), 400, 'Выберите файл плаща (PNG) в поле «cape»');
    await refused(
      await upload(admin, multipart([{ name: 'skin', filename: 'a.png', data: await toPng(capeImage(64, 32)) }])),
      400,
      'В форме загрузки есть лишние поля: нужен файл «cape» и название «title»',
    );
    const same = await uploaded(64, 32);
    const again = await upload(admin, capeForm(Buffer.from((await t.app.inject({ method: 'GET', url: same.url })).rawPayload)));
    expect(again.statusCode).toBe(409);
    expect(errorOf(again)).toMatch(/^Такой плащ уже загружен: «/);
  });

  it('is managed by administrators only', async () => {
    const png = await toPng(capeImage(64, 32));
    expect((await upload(null, capeForm(png))).statusCode).toBe(401);
    const asPlayer = await upload(player, capeForm(png));
    expect([asPlayer.statusCode, errorOf(asPlayer)]).toEqual([403, 'Доступно только администраторам']);
    expect((await call(player, 'GET', '/api/admin/capes')).statusCode).toBe(403);
    expect((await call(player, 'POST', '/api/admin/capes/1/grants', { username: 'Wearer' })).statusCode).toBe(403);
    expect((await call(null, 'GET', '/api/user/capes')).statusCode).toBe(401);
  });

  it('a player wears only capes given to them; taking the cape back takes it off', async () => {
    const cape = await uploaded(64, 32, 'Золотой');
    const other = await uploaded(64, 32, 'Чужой');
    expect((await call(player, 'GET', '/api/user/capes')).json()).toEqual({ capes: [], selected: null });
    const notGiven = await call(player, 'PUT', '/api/user/cape', { cape_id: cape.id });
    expect([notGiven.statusCode, errorOf(notGiven)]).toEqual([403, 'Этот плащ вам не выдан']);

    const granted = await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, { username: 'wearer' });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json().grants).toEqual([
      { id: expect.any(Number), user_id: expect.any(Number), username: 'Wearer', tier_id: null, tier_title: null },
    ]);
    const twice = await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, { username: 'Wearer' });
    expect([twice.statusCode, errorOf(twice)]).toEqual([409, 'Этот плащ уже выдан']);
    expect(errorOf(await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, { username: 'Nobody_here' }))).toBe('Игрок не найден');
    expect((await call(admin, 'POST', `/api/admin/capes/999999/grants`, { username: 'Wearer' })).statusCode).toBe(404);

    const worn = await call(player, 'PUT', '/api/user/cape', { cape_id: cape.id });
    expect(worn.statusCode).toBe(200);
    expect(worn.json()).toEqual({ capes: [{ id: cape.id, title: 'Золотой', width: 64, height: 32, url: cape.url }], selected: cape.id });
    expect((await call(player, 'PUT', '/api/user/cape', { cape_id: other.id })).statusCode).toBe(403);
    expect((await call(player, 'GET', '/api/user/capes')).json().selected).toBe(cape.id);

    const grantId = granted.json().grants[0].id;
    const revoked = await call(admin, 'DELETE', `/api/admin/capes/${cape.id}/grants/${grantId}`);
    expect(revoked.statusCode).toBe(200);
    expect((await call(player, 'GET', '/api/user/capes')).json()).toEqual({ capes: [], selected: null });

    // Given again and worn, then «Без плаща».
    await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, { username: 'Wearer' });
    await call(player, 'PUT', '/api/user/cape', { cape_id: cape.id });
    const none = await call(player, 'PUT', '/api/user/cape', { cape_id: null });
    expect(none.json()).toEqual({ capes: [expect.objectContaining({ id: cape.id })], selected: null });

    // Deleting the cape removes its grants and takes it off whoever wore it.
    await call(player, 'PUT', '/api/user/cape', { cape_id: cape.id });
    expect((await call(admin, 'DELETE', `/api/admin/capes/${cape.id}`)).statusCode).toBe(200);
    expect((await call(player, 'GET', '/api/user/capes')).json()).toEqual({ capes: [], selected: null });
    expect((await t.app.inject({ method: 'GET', url: cape.url })).statusCode).toBe(404);

    const log = await t.handle.db.selectFrom('audit_log').select('action').where('entity', '=', 'cape').execute();
    expect(new Set(log.map((r) => r.action))).toEqual(new Set(['cape.create', 'cape.grant', 'cape.revoke', 'cape.delete']));
  });

  it('a cape given to a tier is held by its holders only (and tiers cannot be bought yet, so by no one)', async () => {
    const tier = await call(admin, 'POST', '/api/donate/add', {
      title: 'VIP',
      content: 'Плюсы',
      amount: 100,
      currency: '₽',
      kits: [],
      features: [],
    });
    expect(tier.statusCode, tier.body).toBe(201);
    const cape = await uploaded(64, 32, 'VIP');
    const granted = await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, { tier_id: tier.json().id });
    expect(granted.statusCode).toBe(200);
    expect(granted.json().grants).toEqual([
      { id: expect.any(Number), user_id: null, username: null, tier_id: tier.json().id, tier_title: 'VIP' },
    ]);
    expect(errorOf(await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, { tier_id: 999999 }))).toBe('Донат не найден');
    expect((await call(admin, 'POST', `/api/admin/capes/${cape.id}/grants`, {})).statusCode).toBe(400);
    expect((await call(player, 'GET', '/api/user/capes')).json().capes).toEqual([]);
    expect((await call(player, 'PUT', '/api/user/cape', { cape_id: cape.id })).statusCode).toBe(403);
  });

  it('renames a cape', async () => {
    const cape = await uploaded(64, 32);
    const res = await call(admin, 'PUT', `/api/admin/capes/${cape.id}`, { title: '  Новое имя ' });
    expect([res.statusCode, res.json().title]).toEqual([200, 'Новое имя']);
    expect(errorOf(await call(admin, 'PUT', `/api/admin/capes/${cape.id}`, { title: '' }))).toContain('Введите название плаща');
    expect((await call(admin, 'PUT', '/api/admin/capes/999999', { title: 'x' })).statusCode).toBe(404);
  });
});
