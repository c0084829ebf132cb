import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readImageHeader } from '../../lib/image-header.ts';
import { chunk, chunkTypes, multipart, pngBomb, withChunksAfterHeader } from '../../../../../testing/skin-images.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } });
const fileForm = (data: Buffer, filename = 'picture.png', type = 'image/png') => multipart([{ name: 'file', filename, type, data }]);

/** A JPEG whose start-of-frame claims other dimensions (the pixels that follow do not matter: it is refused first). */
function jpegClaiming(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let o = 2; o < out.length;) {
    const marker = out[o + 1]!;
    const length = out.readUInt16BE(o + 2);
    if (marker >= 0xc0 && marker <= 0xc2) {
      out.writeUInt16BE(height, o + 5);
      out.writeUInt16BE(width, o + 7);
      return out;
    }
    o += 2 + length;
  }
  throw new Error('no SOF');
}

/** A GIF written by hand: a 2-colour screen and frames of the given sizes, each 1 pixel of LZW data (enough for a header check). */
function handGif(width: number, height: number, frames: [number, number][]): Buffer {
  const u16 = (n: number) => [n & 0xff, n >> 8];
  const bytes = [...Buffer.from('GIF89a'), ...u16(width), ...u16(height), 0x80, 0, 0, 0, 0, 0, 255, 255, 255];
  for (const [w, h] of frames) bytes.push(0x2c, ...u16(0), ...u16(0), ...u16(w), ...u16(h), 0, 2, 2, 0x44, 0x01, 0);
  bytes.push(0x3b);
  return Buffer.from(bytes);
}

describe.each(dbKinds)('media on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Player');
    admin = await loginAs(t, 'Owner');
    player = await loginAs(t, 'Player');
  });
  afterAll(async () => {
    await t?.close();
  });

  const upload = (token: string | null, form: { payload: Buffer; headers: Record<string, string> }) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/admin/media', payload: form.payload, headers: form.headers }));
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('lets only administrators upload, list and delete', async () => {
    const png = await solid(8, 8).png().toBuffer();
    expect((await upload(null, fileForm(png))).statusCode).toBe(401);
    const asPlayer = await upload(player, fileForm(png));
    expect(asPlayer.statusCode).toBe(403);
    expect(errorOf(asPlayer)).toBe('Доступно только администраторам');
    for (const [method, url] of [
      ['GET', '/api/admin/media'],
      ['DELETE', `/api/admin/media/${'a'.repeat(64)}`],
    ] as const) {
      expect((await t.app.inject({ method, url })).statusCode).toBe(401);
      expect((await t.app.inject(asUser(player, { method, url }))).statusCode).toBe(403);
    }
    expect(await t.handle.db.selectFrom('media').select('hash').execute()).toEqual([]);
  });

  it('stores a PNG without its metadata, by content hash, served to guests with a year of caching', async () => {
    const clean = await solid(30, 20).png().toBuffer();
    const file = withChunksAfterHeader(clean, chunk('tEXt', Buffer.from('Author\0Owner at 12 Secret St.')));
    const res = await upload(admin, fileForm(file, 'баннер.png'));
    expect(res.statusCode).toBe(200);
    const body = res.json<{ url: string; width: number; height: number; size: number }>();
    expect(body.url).toMatch(/^\/media\/[0-9a-f]{64}\.png$/);
    expect(body).toMatchObject({ width: 30, height: 20 });

    const served = await get(body.url);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.rawPayload.length).toBe(body.size);
    expect(chunkTypes(served.rawPayload)).not.toContain('tEXt');
    expect(served.rawPayload.includes(Buffer.from('Secret'))).toBe(false);
    const again = await get(body.url, { 'if-none-match': String(served.headers.etag) });
    expect(again.statusCode).toBe(304);

    // The same picture again is the same file, one row.
    const twice = await upload(admin, fileForm(file, 'copy.png'));
    expect(twice.json().url).toBe(body.url);
    expect(await t.handle.db.selectFrom('media').select('hash').execute()).toHaveLength(1);
    // The wrong extension, an unknown hash or a bad name are plain 404s.
    expect((await get(body.url.replace('.png', '.gif'))).statusCode).toBe(404);
    expect((await get(`/media/${'0'.repeat(64)}.png`)).statusCode).toBe(404);
    expect((await get('/media/..%2F..%2Fetc%2Fpasswd')).statusCode).toBe(404);

    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'entity']).where('entity', '=', 'media').execute();
    expect(audit).toEqual([{ action: 'media.upload', entity: 'media' }]);
  });

  it('takes JPEG (EXIF dropped, orientation applied), WebP and animated GIF', async () => {
    // 40×20 stored with EXIF orientation 6 (rotate 90°): shown upright as 20×40.
    const jpeg = await solid(40, 20)
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'Secret Camera Owner' } } })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const j = await upload(admin, fileForm(jpeg, 'photo.jpg', 'image/jpeg'));
    expect(j.statusCode).toBe(200);
    expect(j.json()).toMatchObject({ width: 20, height: 40 });
    expect(j.json().url).toMatch(/\.jpg$/);
    const storedJpeg = (await get(j.json().url)).rawPayload;
    const meta = await sharp(storedJpeg).metadata();
    expect(meta.exif).toBeUndefined();
    expect(storedJpeg.includes(Buffer.from('Secret'))).toBe(false);

    const webp = await solid(16, 16).webp().toBuffer();
    const w = await upload(admin, fileForm(webp, 'a.webp', 'image/webp'));
    expect(w.statusCode).toBe(200);
    expect((await get(w.json().url)).headers['content-type']).toBe('image/webp');

    const frames = await Promise.all(
      [255, 0, 90].map((r) =>
        sharp({ create: { width: 20, height: 10, channels: 4, background: { r, g: 0, b: 0, alpha: 1 } } })
          .png()
          .toBuffer(),
      ),
    );
    const gif = await sharp(frames, { join: { animated: true } })
      .gif()
      .toBuffer();
    expect(readImageHeader(gif)).toEqual({ type: 'gif', width: 20, height: 10, frames: 3 });
    const g = await upload(admin, fileForm(gif, 'a.gif', 'image/gif'));
    expect(g.statusCode).toBe(200);
    expect(g.json()).toMatchObject({ width: 20, height: 10 });
    const storedGif = await sharp((await get(g.json().url)).rawPayload, { animated: true }).metadata();
    expect(storedGif.pages).toBe(3);
  });

  it('refuses other types by their bytes, whatever the name says', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>');
    for (const [data, name] of [
      [svg, 'evil.png'],
      [Buffer.from('just some text'), 'note.png'],
      [await solid(8, 8).tiff().toBuffer(), 'scan.png'],
    ] as const) {
      const res = await upload(admin, fileForm(data, name));
      expect(res.statusCode, name).toBe(415);
      expect(res.json()).toMatchObject({
        error: 'Поддерживаются только картинки PNG, JPEG, WebP и GIF',
        code: 'wrong_type',
        field: 'file',
      });
    }
    const cut = await solid(64, 64).png().toBuffer();
    const broken = await upload(admin, fileForm(cut.subarray(0, cut.length - 20)));
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ error: 'Файл картинки повреждён или обрезан', code: 'broken_image' });
  });

  it('checks the byte size and the pixels before decoding: decompression bombs are refused', async () => {
    // 30000×30000 pixels in a few kilobytes.
    const bomb = pngBomb(30000, 30000);
    expect(bomb.length).toBeLessThan(200_000);
    const res = await upload(admin, fileForm(bomb));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'Картинка слишком большая: не больше 4096×4096 точек',
      code: 'image_too_large',
      field: 'file',
    });

    const jpeg = jpegClaiming(await solid(16, 16).jpeg().toBuffer(), 60000, 60000);
    expect(readImageHeader(jpeg)).toMatchObject({ width: 60000, height: 60000 });
    expect((await upload(admin, fileForm(jpeg, 'bomb.jpg', 'image/jpeg'))).json().code).toBe('image_too_large');

    // A GIF whose screen is small but whose frame claims 65535×65535.
    const gif = handGif(4, 4, [
      [4, 4],
      [65535, 65535],
    ]);
    expect(readImageHeader(gif)).toEqual({ type: 'gif', width: 65535, height: 65535, frames: 2 });
    expect((await upload(admin, fileForm(gif, 'bomb.gif', 'image/gif'))).json().code).toBe('image_too_large');

    // Many frames: each within the side limit, all together over the pixel budget.
    const big = handGif(4000, 4000, [
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(readImageHeader(big)).toEqual({ type: 'gif', width: 4000, height: 4000, frames: 3 });
    const many = await upload(admin, fileForm(big, 'many.gif', 'image/gif'));
    expect(many.json()).toMatchObject({ error: 'В анимации слишком много кадров для её размера', code: 'image_too_large' });

    const huge = Buffer.alloc(8 * 1024 * 1024 + 100, 1);
    const tooBig = await upload(admin, fileForm(huge));
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ error: 'Файл слишком большой: не больше 8 МБ', code: 'file_too_large' });
  });

  it('refuses a form without the file or with other fields', async () => {
    const png = await solid(8, 8).png().toBuffer();
    const other = await upload(admin, multipart([{ name: 'image', filename: 'a.png', type: 'image/png', data: png }]));
    expect(other.statusCode).toBe(400);
    const extra = await upload(
      admin,
      multipart([
        { name: 'title', data: Buffer.from('x') },
        { name: 'file', filename: 'a.png', data: png },
      ]),
    );
    expect(extra.statusCode).toBe(400);
    const json = await t.app.inject(asUser(admin, { method: 'POST', url: '/api/admin/media', payload: { file: 'x' } }));
    expect(json.statusCode).toBe(415);
  });

  it('lists where each file is used and deletes only unused ones', async () => {
    const png = await solid(12, 12).png({ palette: true }).toBuffer();
    const url = (await upload(admin, fileForm(png, 'news.png'))).json().url as string;
    const hash = url.slice(7, 71);
    const created = await t.app.inject(
      asUser(admin, { method: 'POST', url: '/api/tidings/news', payload: { title: 'Открытие', content: 'Текст', image_url: url } }),
    );
    expect(created.statusCode).toBe(201);

    const list = (await t.app.inject(asUser(admin, { method: 'GET', url: '/api/admin/media' }))).json<
      { hash: string; name: string; used_in: unknown[] }[]
    >();
    const item = list.find((m) => m.hash === hash)!;
    expect(item.name).toBe('news.png');
    expect(item.used_in).toEqual([{ section: 'Новости', title: 'Открытие' }]);

    const refused = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/media/${hash}` }));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: 'Картинка используется, удалить нельзя',
      code: 'media_in_use',
      used_in: [{ section: 'Новости', title: 'Открытие' }],
    });

    // An absolute address in a server's description counts too.
    const newsId = created.json<{ id: number }>().id;
    await t.handle.db.deleteFrom('news').where('id', '=', newsId).execute();
    await t.handle.db
      .insertInto('settings')
      .values({ key: 'site', value: JSON.stringify({ logo: `https://kubik.test${url}` }), updated_at: Date.now() })
      .execute();
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/media/${hash}` }))).statusCode).toBe(409);
    await t.handle.db.deleteFrom('settings').where('key', '=', 'site').execute();

    const deleted = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/media/${hash}` }));
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ message: 'Картинка удалена' });
    expect((await get(url)).statusCode).toBe(404);
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/admin/media/${hash}` }))).statusCode).toBe(404);
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/admin/media/nothex' }))).statusCode).toBe(400);
    const actions = await t.handle.db.selectFrom('audit_log').select('action').where('entity_id', '=', hash).orderBy('id').execute();
    expect(actions.map((a) => a.action)).toEqual(['media.upload', 'media.delete']);
  });
});
