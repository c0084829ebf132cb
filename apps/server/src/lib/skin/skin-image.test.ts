import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { drawDefaultSkin } from './default-skin.ts';
import { BufferCache } from './lru-cache.ts';
import { PngError, readPngHeader } from './png.ts';
import { decodePng, detectModel, isSkinSize, readSkin, renderHead, SkinError, type Rgba } from './skin-image.ts';
import {
  animated,
  chunk,
  chunkTypes,
  fill,
  pixelAt,
  pngBomb,
  testSkin,
  toPng,
  withChunksAfterHeader,
} from '../../../../../testing/skin-images.ts';

async function problemOf(file: Buffer): Promise<string> {
  try {
    await readSkin(file);
    return 'accepted';
  } catch (err) {
    if (err instanceof SkinError) return err.problem === 'bad-size' ? `bad-size ${err.width}x${err.height}` : err.problem;
    throw err;
  }
}

/** The composite the head must show at face pixel (x, y) of testSkin(). */
function expectedFace(x: number, y: number): [number, number, number, number] {
  if (x === 1 && y === 1) return [255, 0, 0, 255];
  const [r, g, b] = [10 + x * 20, 10 + y * 20, 200];
  if (x === 6 && y === 2)
    return [Math.round((0 * 128 + r * 127) / 255), Math.round((0 * 128 + g * 127) / 255), Math.round((255 * 128 + b * 127) / 255), 255];
  return [r, g, b, 255];
}

describe('PNG header', () => {
  it('reads the size of a real PNG and refuses other files by their bytes', async () => {
    const png = await toPng(testSkin());
    expect(readPngHeader(png)).toMatchObject({ width: 64, height: 64, bitDepth: 8, colorType: 6 });
    const jpeg = await sharp(testSkin().data, { raw: { width: 64, height: 64, channels: 4 } })
      .jpeg()
      .toBuffer();
    expect(() => readPngHeader(jpeg)).toThrow(new PngError('not-png'));
    expect(() => readPngHeader(Buffer.from('GIF89a'))).toThrow(new PngError('not-png'));
  });

  it('refuses a cut-off file, a damaged chunk and an animated PNG', async () => {
    const png = await toPng(testSkin());
    expect(() => readPngHeader(png.subarray(0, png.length - 12))).toThrow(new PngError('broken'));
    expect(() => readPngHeader(png.subarray(0, 40))).toThrow(new PngError('broken'));
    const damaged = Buffer.from(png);
    damaged[50] = damaged[50]! ^ 0xff;
    expect(() => readPngHeader(damaged)).toThrow(new PngError('broken'));
    expect(() => readPngHeader(animated(png))).toThrow(new PngError('animated'));
    // No image data at all.
    expect(() => readPngHeader(Buffer.concat([png.subarray(0, 33), chunk('IEND', Buffer.alloc(0))]))).toThrow(new PngError('broken'));
  });
});

describe('reading an uploaded skin', () => {
  it('accepts 64×64, 64×32 and HD sizes, and nothing else', () => {
    for (const [w, h] of [
      [64, 64],
      [64, 32],
      [128, 128],
      [128, 64],
      [192, 96],
      [512, 512],
      [512, 256],
    ])
      expect(isSkinSize(w!, h!), `${w}x${h}`).toBe(true);
    for (const [w, h] of [
      [65, 64],
      [64, 65],
      [32, 32],
      [64, 128],
      [576, 576],
      [1024, 512],
      [96, 96],
      [128, 96],
    ])
      expect(isSkinSize(w!, h!), `${w}x${h}`).toBe(false);
  });

  it('refuses a PNG bomb from its header, before decoding anything', async () => {
    const bomb = pngBomb(30000, 30000);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const before = process.memoryUsage().rss;
    const started = performance.now();
    expect(await problemOf(bomb)).toBe('bad-size 30000x30000');
    expect(performance.now() - started).toBeLessThan(200);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('refuses wrong sizes, non-PNG files, cut-off, animated and oversized files', async () => {
    expect(
      await problemOf(await toPng(fill({ width: 65, height: 64, data: Buffer.alloc(65 * 64 * 4) }, 0, 0, 65, 64, [1, 2, 3, 255]))),
    ).toBe('bad-size 65x64');
    const jpeg = await sharp(testSkin().data, { raw: { width: 64, height: 64, channels: 4 } })
      .jpeg()
      .toBuffer();
    expect(await problemOf(jpeg)).toBe('not-png');
    const png = await toPng(testSkin());
    expect(await problemOf(png.subarray(0, Math.floor(png.length / 2)))).toBe('broken');
    expect(await problemOf(animated(png))).toBe('animated');
    expect(await problemOf(Buffer.concat([png, Buffer.alloc(300 * 1024)]))).toBe('too-big');
  });

  it('keeps exactly the pixels and nothing else of the file', async () => {
    const img = testSkin();
    const exif = await sharp(img.data, { raw: { width: 64, height: 64, channels: 4 } })
      .png()
      .withMetadata({ exif: { IFD0: { Copyright: 'secret location' } } })
      .toBuffer();
    const tagged = withChunksAfterHeader(exif, chunk('tEXt', Buffer.from('Comment\0made at home, 12 Secret St.')));
    expect(chunkTypes(tagged)).toEqual(expect.arrayContaining(['iCCP', 'eXIf', 'tEXt']));
    const skin = await readSkin(tagged);
    expect(chunkTypes(skin.png).filter((t) => !['IHDR', 'IDAT', 'IEND', 'pHYs'].includes(t))).toEqual([]);
    expect(skin.png.includes(Buffer.from('Secret'))).toBe(false);
    expect((await decodePng(skin.png)).data.equals(img.data)).toBe(true);
    // The same pixels in another file give the same hash.
    expect((await readSkin(await toPng(img, { compressionLevel: 1 }))).hash).toBe(skin.hash);
    expect((await readSkin(await toPng(testSkin({ body: [1, 1, 1, 255] })))).hash).not.toBe(skin.hash);
  });

  it('turns a 16-bit PNG into an ordinary 8-bit one with the same colours', async () => {
    const img = testSkin();
    const deep = await sharp(img.data, { raw: { width: 64, height: 64, channels: 4 } })
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    expect(readPngHeader(deep).bitDepth).toBe(16);
    const skin = await readSkin(deep);
    expect(readPngHeader(skin.png).bitDepth).toBe(8);
    expect((await decodePng(skin.png)).data.equals(img.data)).toBe(true);
  });

  it('reads palette and greyscale PNGs as RGBA', async () => {
    const img = testSkin();
    const palette = await toPng(img, { palette: true });
    expect(readPngHeader(palette).colorType).toBe(3);
    const skin = await readSkin(palette);
    expect(skin.width).toBe(64);
    expect(pixelAt(skin, 41, 9)).toEqual([255, 0, 0, 255]);
  });
});

describe('model detection', () => {
  it('finds slim arms by the strips they leave empty, like the viewer does', async () => {
    expect(detectModel(testSkin())).toBe('default');
    expect(detectModel(testSkin({ slim: true }))).toBe('slim');
    expect((await readSkin(await toPng(testSkin({ slim: true })))).model).toBe('slim');
    const black = testSkin();
    for (const [x, y, w, h] of [
      [50, 16, 2, 4],
      [54, 20, 2, 12],
      [42, 48, 2, 4],
      [46, 52, 2, 12],
    ] as const)
      fill(black, x, y, w, h, [0, 0, 0, 255]);
    expect(detectModel(black)).toBe('slim');
    expect(detectModel(testSkin({ height: 32 }))).toBe('default');
  });
});

describe('head rendering', () => {
  it('draws the face with the hat over it, pixel for pixel at 8×8', () => {
    const head = renderHead(testSkin(), 8);
    for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) expect(pixelAt(head, x, y), `(${x},${y})`).toEqual(expectedFace(x, y));
  });

  it('scales by nearest neighbour: each skin pixel becomes a square block', () => {
    const head = renderHead(testSkin(), 64);
    for (let y = 0; y < 64; y++)
      for (let x = 0; x < 64; x++) expect(pixelAt(head, x, y)).toEqual(expectedFace(Math.floor(x / 8), Math.floor(y / 8)));
    const odd = renderHead(testSkin(), 12);
    for (let y = 0; y < 12; y++)
      for (let x = 0; x < 12; x++) expect(pixelAt(odd, x, y)).toEqual(expectedFace(Math.floor((x * 8) / 12), Math.floor((y * 8) / 12)));
  });

  it('reads HD skins at their scale and legacy skins from the same places', () => {
    const hd: Rgba = { width: 128, height: 128, data: Buffer.alloc(128 * 128 * 4) };
    const base = testSkin();
    for (let y = 0; y < 128; y++) for (let x = 0; x < 128; x++) fill(hd, x, y, 1, 1, pixelAt(base, Math.floor(x / 2), Math.floor(y / 2)));
    expect(renderHead(hd, 64).data.equals(renderHead(base, 64).data)).toBe(true);
    expect(renderHead(testSkin({ height: 32 }), 8).data.equals(renderHead(base, 8).data)).toBe(true);
  });

  it('ignores the hat of a skin without a single transparent pixel, and draws the face opaque', () => {
    // Every pixel opaque: the hat area is a black box, and the game would hide the face behind it.
    const opaque = testSkin();
    for (let i = 3; i < opaque.data.length; i += 4) opaque.data[i] = 255;
    const head = renderHead(opaque, 8);
    for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) expect(pixelAt(head, x, y)).toEqual([10 + x * 20, 10 + y * 20, 200, 255]);

    const holed = fill(testSkin(), 8, 8, 1, 1, [5, 6, 7, 0]);
    expect(pixelAt(renderHead(holed, 8), 0, 0)).toEqual([5, 6, 7, 255]);
  });
});

describe('the default skin', () => {
  it('is drawn in code: a full 64×64 base layer with wide arms and an empty outer layer', async () => {
    const skin = drawDefaultSkin();
    expect([skin.width, skin.height]).toEqual([64, 64]);
    expect(detectModel(skin)).toBe('default');
    for (const [x, y] of [
      [8, 8],
      [20, 20],
      [44, 20],
      [4, 20],
      [20, 52],
      [36, 52],
    ] as const)
      expect(pixelAt(skin, x, y)[3]).toBe(255);
    for (const [x, y] of [
      [40, 8],
      [20, 36],
      [4, 52],
      [52, 52],
      [0, 0],
    ] as const)
      expect(pixelAt(skin, x, y)[3]).toBe(0);
    const read = await readSkin(await toPng(skin));
    expect(read.data.equals(skin.data)).toBe(true);
  });
});

describe('buffer cache', () => {
  it('keeps to its byte budget, dropping the least recently used', () => {
    const cache = new BufferCache(100);
    cache.set('a', Buffer.alloc(40));
    cache.set('b', Buffer.alloc(40));
    cache.get('a');
    cache.set('c', Buffer.alloc(40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.size).toEqual({ entries: 2, bytes: 80 });
    cache.set('huge', Buffer.alloc(101));
    expect(cache.get('huge')).toBeUndefined();
  });
});
