import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readCape } from './cape-image.ts';
import { decodePng, pixelHash, readSkin, type Rgba } from './skin-image.ts';
import { blank, fill, pixelAt, testSkin, toPng } from '../../../../../testing/skin-images.ts';

/** A picture whose every pixel differs, with fully and half transparent ones mixed in. */
function pattern(width: number, height: number): Rgba {
  const img = blank(width, height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      fill(img, x, y, 1, 1, [
        (x * 7 + y * 3) & 255,
        (x * y) & 255,
        (255 - x * 4) & 255,
        (x + y) % 5 === 0 ? 0 : (x * y) % 3 === 0 ? 128 : 255,
      ]);
  return img;
}

// Expected values computed with yggdrasil-mock's own test/src/texture-hash.js (read with the
// research tools, run once outside this repository on the same pictures).
describe('texture hash (the authlib-injector test suite’s)', () => {
  it('matches the reference on known pictures', () => {
    const tiny = blank(2, 2);
    fill(tiny, 0, 0, 1, 1, [255, 0, 0, 255]);
    fill(tiny, 1, 0, 1, 1, [0, 255, 0, 255]);
    fill(tiny, 0, 1, 1, 1, [0, 0, 255, 255]);
    fill(tiny, 1, 1, 1, 1, [255, 255, 255, 0]);
    expect(pixelHash(tiny)).toBe('b3bb1f8315405a31d892b332c78a31c4094cc71be167685d8e31be6ac6ebea77');
    expect(pixelHash(pattern(64, 32))).toBe('9a765afe020e3a2362040e7d8f80811094385ab078cf40b48ce91f21c893af5f');
    expect(pixelHash(pattern(17, 9))).toBe('8903a765b3a045cae358d1d9f9a17bacd077dc1b245355a0a6569699ccba2002');
  });

  it('walks column by column, alpha first, and is not the old "WxH:" + RGBA digest', () => {
    const img = pattern(64, 32);
    const rowMajor = createHash('sha256');
    const head = Buffer.alloc(8);
    head.writeUInt32BE(64, 0);
    head.writeUInt32BE(32, 4);
    rowMajor.update(head);
    for (let i = 0; i < img.data.length; i += 4) {
      const [r, g, b, a] = img.data.subarray(i, i + 4);
      rowMajor.update(a === 0 ? Buffer.alloc(4) : Buffer.from([a!, r!, g!, b!]));
    }
    expect(pixelHash(img)).not.toBe(rowMajor.digest('hex'));
    const old = createHash('sha256').update('64x32:').update(img.data).digest('hex');
    expect(pixelHash(img)).not.toBe(old);
  });

  it('does not see the colour under a fully transparent pixel, but sees it under a half transparent one', () => {
    const a = fill(blank(64, 32), 0, 0, 8, 8, [0, 0, 0, 0]);
    const hidden = fill(blank(64, 32), 0, 0, 8, 8, [200, 10, 10, 0]);
    expect(pixelHash(hidden)).toBe(pixelHash(a));
    const half = fill(blank(64, 32), 0, 0, 8, 8, [0, 0, 0, 1]);
    const halfRed = fill(blank(64, 32), 0, 0, 8, 8, [200, 10, 10, 1]);
    expect(pixelHash(halfRed)).not.toBe(pixelHash(half));
  });

  it('an upload keeps no colour under fully transparent pixels: one hash, one stored file', async () => {
    const plain = testSkin();
    const hidden = testSkin();
    // The hat layer is transparent: paint colour under it without making it visible.
    fill(hidden, 32, 0, 32, 16, [90, 200, 30, 0]);
    fill(hidden, 40 + 1, 8 + 1, 1, 1, [255, 0, 0, 255]);
    fill(hidden, 40 + 6, 8 + 2, 1, 1, [0, 0, 255, 128]);
    const [a, b] = [await readSkin(await toPng(plain)), await readSkin(await toPng(hidden))];
    expect(b.hash).toBe(a.hash);
    expect(b.png.equals(a.png)).toBe(true);
    const stored = await decodePng(b.png);
    expect(pixelAt(stored, 33, 1)).toEqual([0, 0, 0, 0]);
    expect(pixelAt(stored, 46, 10)).toEqual([0, 0, 255, 128]);
    expect(pixelHash(stored)).toBe(b.hash);
  });

  it('a cape is hashed as stored: padded to 64×32, hidden colours cleared', async () => {
    const small = fill(blank(22, 17), 0, 0, 22, 17, [10, 120, 200, 255]);
    fill(small, 0, 0, 1, 1, [255, 255, 255, 0]);
    const cape = await readCape(await toPng(small));
    const stored = await decodePng(cape.png);
    expect([stored.width, stored.height]).toEqual([64, 32]);
    expect(pixelAt(stored, 0, 0)).toEqual([0, 0, 0, 0]);
    expect(cape.hash).toBe(pixelHash(stored));
  });
});
