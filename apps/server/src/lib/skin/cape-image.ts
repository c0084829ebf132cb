import { CAPE_MAX_BYTES, CAPE_MAX_SCALE } from '@kubik/contract';
import sharp, { type OutputInfo } from 'sharp';
import { readPngHeader, PngError } from './png.ts';
import { encodePng, pixelHash, SkinError, type Rgba } from './skin-image.ts';

export interface Cape extends Rgba {
  png: Buffer;
  hash: string;
}

/**
 * Where an image of this size sits in the 64×32 cape layout, and that layout's scale: 64×32 and
 * its HD multiples as they are; the cape-only 22×17 and the cape-and-elytra 46×23 textures (the
 * sizes authlib-injector and the site's spec name), and their multiples, padded with transparent
 * pixels to the full layout, as the game itself expects.
 */
export function capeCanvas(width: number, height: number): { scale: number } | null {
  for (const [w, h] of [
    [64, 32],
    [22, 17],
    [46, 23],
  ] as const) {
    if (width % w !== 0 || height * w !== width * h) continue;
    const scale = width / w;
    if (scale >= 1 && scale <= CAPE_MAX_SCALE) return { scale };
  }
  return null;
}

const MAX_PIXELS = 64 * CAPE_MAX_SCALE * 32 * CAPE_MAX_SCALE;
const DECODE = { limitInputPixels: MAX_PIXELS, failOn: 'warning', ignoreIcc: true, autoOrient: false } as const;

/**
 * Checks an uploaded cape like a skin: the size on the PNG header before any decoding (a small
 * file may claim a huge image), then decoding with a pixel cap, padding to the layout and
 * encoding afresh, so nothing of the file but its pixels is kept.
 */
export async function readCape(file: Buffer): Promise<Cape> {
  if (file.length > CAPE_MAX_BYTES) throw new SkinError('too-big');
  let header;
  try {
    header = readPngHeader(file);
  } catch (err) {
    if (err instanceof PngError) throw new SkinError(err.problem);
    throw err;
  }
  const canvas = capeCanvas(header.width, header.height);
  if (!canvas) throw new SkinError('bad-size', header.width, header.height);

  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharp(file, DECODE).ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch {
    throw new SkinError('broken');
  }
  const { width, height, channels } = decoded.info;
  if (width !== header.width || height !== header.height || channels !== 4) throw new SkinError('broken');
  const full: Rgba = { width: 64 * canvas.scale, height: 32 * canvas.scale, data: Buffer.alloc(64 * canvas.scale * 32 * canvas.scale * 4) };
  for (let y = 0; y < height; y++) decoded.data.copy(full.data, y * full.width * 4, y * width * 4, (y + 1) * width * 4);
  return { ...full, png: await encodePng(full), hash: pixelHash(full) };
}
