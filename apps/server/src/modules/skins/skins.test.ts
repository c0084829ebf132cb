import { Readable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawDefaultSkin } from '../../lib/skin/default-skin.ts';
import { readPngHeader } from '../../lib/skin/png.ts';
import { decodePng, renderHead, type Rgba } from '../../lib/skin/skin-image.ts';
import {
  animated,
  chunk,
  chunkTypes,
  fill,
  multipart,
  pngBomb,
  skinForm,
  testSkin,
  toPng,
  withChunksAfterHeader,
} from '../../../../../testing/skin-images.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

describe.each(dbKinds)('skins on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  let seq = 0;
  /** A fresh logged-in player (the upload limit counts per player). */
  async function player(name = `Player${++seq}`): Promise<{ name: string; token: string }> {
    await seedUser(t, name);
    return { name, token: await loginAs(t, name) };
  }
  const upload = (token: string | null, form: { payload: Buffer | Readable; headers: Record<string, string> }) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/user/skin', payload: form.payload, headers: form.headers }));
  const get = (token: string | null, url: string, headers: Record<string, string> = {}) =>
    t.app.inject(asUser(token, { method: 'GET', url, headers }));
  const image = (res: LightMyRequestResponse): Promise<Rgba> => decodePng(res.rawPayload);
  const skinRows = async () =>
    (await t.handle.db.selectFrom('skins').select(['hash', 'png']).execute()).map((r) => ({ hash: r.hash, png: Buffer.from(r.png) }));
  const infoOf = async (token: string) => (await get(token, '/api/user/skin')).json();

  it('asks a guest to log in, and shows the default skin to a player who has none', async () => {
    for (const url of ['/api/user/head', '/api/user/skin.png', '/api/user/skin']) {
      const res = await get(null, url);
      expect(res.statusCode, url).toBe(401);
      expect(errorOf(res)).toBe('Войдите в аккаунт');
    }
    const guestUpload = await upload(null, skinForm(await toPng(testSkin())));
    expect(guestUpload.statusCode).toBe(401);

    const p = await player();
    const info = await infoOf(p.token);
    expect(info).toMatchObject({ username: p.name, custom: false, model: 'default', width: 64, height: 64 });
    expect(info.head_url).toBe(`/api/user/head?v=${info.version}`);

    const skin = await get(p.token, '/api/user/skin.png');
    expect(skin.statusCode).toBe(200);
    expect(skin.headers['content-type']).toBe('image/png');
    expect((await image(skin)).data.equals(drawDefaultSkin().data)).toBe(true);
    const head = await get(p.token, '/api/user/head');
    expect(head.statusCode).toBe(200);
    expect((await image(head)).data.equals(renderHead(drawDefaultSkin(), 64).data)).toBe(true);
  });

  it('uploads a skin: stored without metadata, served pixel for pixel, head rendered exactly', async () => {
    const p = await player('Steve_Up');
    const img = testSkin();
    const file = withChunksAfterHeader(await toPng(img), chunk('tEXt', Buffer.from('Author\0Steve from 12 Secret St.')));
    const res = await upload(p.token, skinForm(file, 'my skin.png'));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      message: 'Скин успешно загружен!',
      username: 'Steve_Up',
      custom: true,
      model: 'default',
      width: 64,
      height: 64,
    });
    expect(body.version).toMatch(/^[0-9a-f]{16}$/);
    expect(await infoOf(p.token)).toEqual({ ...body, message: undefined });

    const served = await get(p.token, '/api/user/skin.png');
    expect(served.statusCode).toBe(200);
    expect(chunkTypes(served.rawPayload)).not.toContain('tEXt');
    expect(served.rawPayload.includes(Buffer.from('Secret'))).toBe(false);
    expect((await image(served)).data.equals(img.data)).toBe(true);

    for (const size of [8, 64, 100, 512]) {
      const head = await get(p.token, `/api/user/head?size=${size}`);
      expect(head.statusCode).toBe(200);
      const px = await image(head);
      expect([px.width, px.height]).toEqual([size, size]);
      expect(px.data.equals(renderHead(img, size).data)).toBe(true);
    }
    // Face pixel (1,1) is covered by the hat's red pixel; (0,0) is the bare face; (6,2) is half blue.
    const h8 = await image(await get(p.token, '/api/user/head?size=8'));
    expect([...h8.data.subarray((1 * 8 + 1) * 4, (1 * 8 + 1) * 4 + 4)]).toEqual([255, 0, 0, 255]);
    expect([...h8.data.subarray(0, 4)]).toEqual([10, 10, 200, 255]);
    expect([...h8.data.subarray((2 * 8 + 6) * 4, (2 * 8 + 6) * 4 + 4)]).toEqual([65, 25, 228, 255]);

    // The same head and skin by name, for lists and comments, whatever the case of the name.
    const pub = await get(null, '/api/user/steve_up/head?size=8');
    expect(pub.statusCode).toBe(200);
    expect((await image(pub)).data.equals(h8.data)).toBe(true);
    expect((await image(await get(null, '/api/user/STEVE_UP/skin.png'))).data.equals(img.data)).toBe(true);
    expect((await get(null, '/api/user/steve_up/skin')).json()).toMatchObject({
      username: 'Steve_Up',
      custom: true,
      version: body.version,
      head_url: `/api/user/Steve_Up/head?v=${body.version}`,
    });
  });

  it('detects slim arms, keeps a chosen model and lets the player switch it', async () => {
    const p = await player();
    const slim = await upload(p.token, skinForm(await toPng(testSkin({ slim: true }))));
    expect(slim.json().model).toBe('slim');
    const chosen = await upload(
      p.token,
      multipart([
        { name: 'model', data: 'default' },
        { name: 'skin', filename: 's.png', type: 'image/png', data: await toPng(testSkin({ slim: true })) },
      ]),
    );
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json().model).toBe('default');
    const switched = await t.app.inject(asUser(p.token, { method: 'PUT', url: '/api/user/skin/model', payload: { model: 'slim' } }));
    expect(switched.statusCode).toBe(200);
    expect((await infoOf(p.token)).model).toBe('slim');
    expect((await get(null, `/api/user/${p.name}/skin`)).json().model).toBe('slim');

    const bad = await t.app.inject(asUser(p.token, { method: 'PUT', url: '/api/user/skin/model', payload: { model: 'huge' } }));
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toContain('Модель: default (обычные руки) или slim (тонкие руки)');
    const badField = await upload(
      p.token,
      multipart([
        { name: 'model', data: 'wide' },
        { name: 'skin', filename: 's.png', type: 'image/png', data: await toPng(testSkin()) },
      ]),
    );
    expect(badField.statusCode).toBe(400);
    expect(errorOf(badField)).toBe('Модель: default (обычные руки) или slim (тонкие руки)');

    const fresh = await player();
    const none = await t.app.inject(asUser(fresh.token, { method: 'PUT', url: '/api/user/skin/model', payload: { model: 'slim' } }));
    expect(none.statusCode).toBe(409);
    expect(errorOf(none)).toBe('Сначала загрузите свой скин');
  });

  describe('refuses what is not a skin, and changes nothing', () => {
    let p: { name: string; token: string };
    let before: { version: string };
    let rows: number;
    let bomb: Buffer;
    beforeAll(async () => {
      p = await player('Careful');
      expect((await upload(p.token, skinForm(await toPng(testSkin())))).statusCode).toBe(200);
      before = await infoOf(p.token);
      rows = (await skinRows()).length;
      bomb = pngBomb(30000, 30000);
    });
    async function refused(res: LightMyRequestResponse, status: number, text: string) {
      expect(res.statusCode, res.body).toBe(status);
      expect(errorOf(res)).toBe(text);
      expect((await infoOf(p.token)).version).toBe(before.version);
      expect((await skinRows()).length).toBe(rows);
    }

    it('a PNG bomb: a small file whose header claims 30000×30000', async () => {
      expect(bomb.length).toBeLessThan(256 * 1024);
      const rss = process.memoryUsage().rss;
      const started = performance.now();
      const res = await upload(p.token, skinForm(bomb));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
      await refused(
        res,
        400,
        'Неподходящий размер скина: 30000×30000. Нужен 64×64 или 64×32 (HD: 128×128, 256×256, 512×512 или вдвое ниже)',
      );
    });

    it('a JPEG named .png and sent as image/png, a GIF, a text file', async () => {
      const jpeg = await sharp(testSkin().data, { raw: { width: 64, height: 64, channels: 4 } })
        .jpeg()
        .toBuffer();
      await refused(await upload(p.token, skinForm(jpeg, 'skin.png', 'image/png')), 415, 'Скин должен быть PNG-изображением');
      await refused(await upload(p.token, skinForm(Buffer.from('GIF89a....'), 'skin.png')), 415, 'Скин должен быть PNG-изображением');
      await refused(await upload(p.token, skinForm(Buffer.from('<?php echo 1; ?>'), 'skin.png')), 415, 'Скин должен быть PNG-изображением');
    });

    it('a truncated PNG and a damaged one', async () => {
      const png = await toPng(testSkin());
      await refused(await upload(p.token, skinForm(png.subarray(0, png.length - 20))), 400, 'Файл PNG повреждён или обрезан');
      const damaged = Buffer.from(png);
      damaged[60] = damaged[60]! ^ 0x55;
      await refused(await upload(p.token, skinForm(damaged)), 400, 'Файл PNG повреждён или обрезан');
    });

    it('wrong sizes: 65×64, 64×128, 1024×1024', async () => {
      const sized = (w: number, h: number) =>
        toPng(fill({ width: w, height: h, data: Buffer.alloc(w * h * 4) }, 0, 0, w, h, [9, 9, 9, 255]));
      await refused(
        await upload(p.token, skinForm(await sized(65, 64))),
        400,
        'Неподходящий размер скина: 65×64. Нужен 64×64 или 64×32 (HD: 128×128, 256×256, 512×512 или вдвое ниже)',
      );
      await refused(
        await upload(p.token, skinForm(await sized(64, 128))),
        400,
        'Неподходящий размер скина: 64×128. Нужен 64×64 или 64×32 (HD: 128×128, 256×256, 512×512 или вдвое ниже)',
      );
      await refused(
        await upload(p.token, skinForm(await sized(1024, 1024))),
        400,
        'Неподходящий размер скина: 1024×1024. Нужен 64×64 или 64×32 (HD: 128×128, 256×256, 512×512 или вдвое ниже)',
      );
    });

    it('an animated PNG', async () => {
      await refused(
        await upload(p.token, skinForm(animated(await toPng(testSkin())))),
        415,
        'Анимированный PNG не подходит для скина: нужен обычный PNG',
      );
    });

    it('10 MB, announced by Content-Length or streamed without it', async () => {
      const big = Buffer.concat([await toPng(testSkin()), Buffer.alloc(10 * 1024 * 1024)]);
      await refused(await upload(p.token, skinForm(big)), 413, 'Файл скина слишком большой: не больше 256 КБ');
      const form = skinForm(big);
      const streamed = await upload(p.token, {
        payload: Readable.from([form.payload.subarray(0, 1 << 20), form.payload.subarray(1 << 20)]),
        headers: form.headers,
      });
      await refused(streamed, 413, 'Файл скина слишком большой: не больше 256 КБ');
    });

    it('broken or wrong forms', async () => {
      const png = await toPng(testSkin());
      const json = await t.app.inject(asUser(p.token, { method: 'POST', url: '/api/user/skin', payload: { skin: 'x' } }));
      await refused(json, 415, 'Отправьте скин формой multipart/form-data с файлом в поле «skin»');
      const form = skinForm(png);
      await refused(
        await upload(p.token, { payload: form.payload.subarray(0, 200), headers: form.headers }),
        400,
        'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
      );
      await refused(
        await upload(p.token, { payload: form.payload, headers: { 'content-type': 'multipart/form-data' } }),
        400,
        'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
      );
      await refused(
        await upload(p.token, { payload: Buffer.from('garbage'), headers: form.headers }),
        400,
        'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
      );
      await refused(await upload(p.token, multipart([])), 400, 'Выберите файл скина (PNG) в поле «skin»');
      await refused(await upload(p.token, skinForm(Buffer.alloc(0))), 400, 'Выберите файл скина (PNG) в поле «skin»');
      await refused(
        await upload(p.token, multipart([{ name: 'avatar', filename: 'a.png', type: 'image/png', data: png }])),
        400,
        'В форме загрузки есть лишние поля: нужен только файл «skin» и, по желанию, «model»',
      );
      await refused(
        await upload(
          p.token,
          multipart([
            { name: 'note', data: 'hi' },
            { name: 'skin', filename: 'a.png', data: png },
          ]),
        ),
        400,
        'В форме загрузки есть лишние поля: нужен только файл «skin» и, по желанию, «model»',
      );
      const two = multipart([
        { name: 'skin', filename: 'a.png', type: 'image/png', data: png },
        { name: 'skin', filename: 'b.png', type: 'image/png', data: png },
      ]);
      await refused(await upload(p.token, two), 400, 'Загрузите один файл скина');
      const proto = multipart([
        { name: '__proto__', data: 'x' },
        { name: 'skin', filename: 'a.png', data: png },
      ]);
      expect((await upload(p.token, proto)).statusCode).toBe(400);
    });
  });

  it('accepts a 16-bit PNG, storing it as an ordinary 8-bit one, and HD and legacy sizes', async () => {
    const p = await player();
    const img = testSkin();
    const deep = await sharp(img.data, { raw: { width: 64, height: 64, channels: 4 } })
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    expect((await upload(p.token, skinForm(deep))).statusCode).toBe(200);
    const stored = await get(p.token, '/api/user/skin.png');
    expect(readPngHeader(stored.rawPayload).bitDepth).toBe(8);
    expect((await image(stored)).data.equals(img.data)).toBe(true);

    const legacy = await upload(p.token, skinForm(await toPng(testSkin({ height: 32 }))));
    expect(legacy.json()).toMatchObject({ width: 64, height: 32, model: 'default' });
    expect((await image(await get(p.token, '/api/user/head?size=8'))).data.equals(renderHead(img, 8).data)).toBe(true);

    const hd: Rgba = { width: 256, height: 256, data: Buffer.alloc(256 * 256 * 4) };
    fill(hd, 0, 0, 256, 256, [40, 80, 120, 255]);
    fill(hd, 32, 32, 4, 4, [250, 1, 2, 255]);
    expect((await upload(p.token, skinForm(await toPng(hd)))).json()).toMatchObject({ width: 256, height: 256 });
    const head = await image(await get(p.token, '/api/user/head?size=8'));
    expect([...head.data.subarray(0, 4)]).toEqual([250, 1, 2, 255]);
    expect([...head.data.subarray(4, 8)]).toEqual([40, 80, 120, 255]);
  });

  it('stores a skin once however many players wear it, and drops one nobody wears', async () => {
    const a = await player();
    const b = await player();
    const img = testSkin({ body: [33, 66, 99, 255] });
    const start = (await skinRows()).length;
    expect((await upload(a.token, skinForm(await toPng(img)))).statusCode).toBe(200);
    // Same pixels in a differently compressed file with metadata: the same skin.
    const other = withChunksAfterHeader(await toPng(img, { compressionLevel: 0 }), chunk('tEXt', Buffer.from('Title\0copy')));
    expect((await upload(b.token, skinForm(other))).statusCode).toBe(200);
    expect((await upload(a.token, skinForm(await toPng(img)))).statusCode).toBe(200);
    expect((await skinRows()).length).toBe(start + 1);
    expect((await infoOf(a.token)).version).toBe((await infoOf(b.token)).version);

    // a changes skin: the shared one stays (b wears it), and a's new one is added.
    expect((await upload(a.token, skinForm(await toPng(testSkin({ body: [1, 2, 3, 255] }))))).statusCode).toBe(200);
    expect((await skinRows()).length).toBe(start + 2);
    // b changes too: now nobody wears the shared skin, so it goes.
    const shared = (await infoOf(b.token)).version;
    expect((await upload(b.token, skinForm(await toPng(testSkin({ body: [4, 5, 6, 255] }))))).statusCode).toBe(200);
    const hashes = (await skinRows()).map((r) => r.hash.slice(0, 16));
    expect(hashes).not.toContain(shared);
    expect(hashes.length).toBe(start + 2);
  });

  it('caches by version: ETag and 304 for an unchanged skin, a new ETag at once for a new one', async () => {
    const p = await player();
    const first = await get(p.token, '/api/user/head?size=32');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{16}-32"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.headers.vary).toContain('Cookie');

    const again = await get(p.token, '/api/user/head?size=32', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await get(p.token, '/api/user/head?size=64', { 'if-none-match': etag })).statusCode).toBe(200);
    expect((await get(p.token, '/api/user/head?size=32', { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);

    const uploaded = (await upload(p.token, skinForm(await toPng(testSkin())))).json();
    const changed = await get(p.token, '/api/user/head?size=32', { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).toBe(`"${uploaded.version}-32"`);
    expect((await image(changed)).data.equals(renderHead(testSkin(), 32).data)).toBe(true);

    // With the current version in the URL the answer is final; an old version is revalidated.
    const pinned = await get(p.token, `/api/user/head?size=32&v=${uploaded.version}`);
    expect(pinned.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect((await get(p.token, `/api/user/skin.png?v=old&t=${Date.now()}`)).headers['cache-control']).toBe('private, no-cache');
    const skinTag = (await get(p.token, '/api/user/skin.png')).headers.etag as string;
    expect(skinTag).toBe(`"${uploaded.version}"`);
    expect((await get(p.token, '/api/user/skin.png', { 'if-none-match': skinTag })).statusCode).toBe(304);

    const pub = await get(null, `/api/user/${p.name}/head?v=${uploaded.version}`);
    expect(pub.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pub.headers.etag).toBe(`"${uploaded.version}-64"`);
    expect((await get(null, `/api/user/${p.name}/skin.png`, { 'if-none-match': skinTag })).statusCode).toBe(304);
  });

  it('checks the head size and the player name', async () => {
    const p = await player();
    for (const size of ['7', '513', 'abc', '1.5', '-8']) {
      const res = await get(p.token, `/api/user/head?size=${size}`);
      expect(res.statusCode, size).toBe(400);
      expect(errorOf(res)).toContain('Размер головы: целое число от 8 до 512');
    }
    const unknown = await get(null, '/api/user/Nobody_Here/head');
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown)).toBe('Игрок не найден');
    const badName = await get(null, '/api/user/a-b/head');
    expect(badName.statusCode).toBe(400);
    expect(errorOf(badName)).toContain('Имя игрока');

    const gone = await player();
    await t.handle.db.updateTable('users').set({ deleted_at: Date.now() }).where('username', '=', gone.name).execute();
    expect((await get(null, `/api/user/${gone.name}/skin.png`)).statusCode).toBe(404);
  });

  it('leaves the other /api/user routes alone, and documents its own', async () => {
    const p = await player('Skin');
    expect((await get(p.token, '/api/user/me')).json().username).toBe('Skin');
    // A player may be called "skin" or "head": the by-name routes still find them.
    expect((await get(null, '/api/user/Skin/head')).statusCode).toBe(200);
    expect((await get(null, '/api/user/skin/skin')).json().username).toBe('Skin');
    // Even "confirm", whose name is also the e-mail link route /api/user/confirm/:token.
    const confirm = await player('confirm');
    expect((await upload(confirm.token, skinForm(await toPng(testSkin())))).statusCode).toBe(200);
    const head = await get(null, '/api/user/confirm/head?size=8');
    expect(head.statusCode).toBe(200);
    expect((await image(head)).data.equals(renderHead(testSkin(), 8).data)).toBe(true);
    expect((await get(null, '/api/user/confirm/skin.png')).headers['content-type']).toBe('image/png');
    expect((await get(null, '/api/user/confirm/skin')).json()).toMatchObject({ username: 'confirm', custom: true });
    expect((await get(null, '/api/user/confirm/not-a-real-token-0123456789')).headers.location).toBe('/login?verified=invalid');

    const doc = (await get(null, '/api/docs/json')).json();
    expect(doc.paths['/api/user/head'].get.responses['200'].content['image/png']).toBeDefined();
    expect(doc.paths['/api/user/{username}/head'].get.parameters.map((x: { name: string }) => x.name)).toEqual(
      expect.arrayContaining(['username', 'size', 'v']),
    );
    expect(doc.paths['/api/user/skin'].post.requestBody.content['multipart/form-data']).toBeDefined();
  });

  it('limits uploads per player', async () => {
    const p = await player();
    const png = await toPng(testSkin());
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 31; i++) last = await upload(p.token, skinForm(png));
    expect(last!.statusCode).toBe(429);
    expect(errorOf(last!)).toMatch(/^Слишком много попыток/);
    // Over the limit the form is not read: a broken one is refused for the rate, not as broken.
    const broken = await upload(p.token, {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: Buffer.from('--x\r\nbroken'),
    });
    expect(broken.statusCode).toBe(429);
  });
});
