import { CAPE_MAX_BYTES, CAPE_MAX_SCALE } from '@kubik/contract';
import { clearTransparent, decodeUpload, encodePng, pixelHash, type Rgba } from './skin-image.ts';

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

/**
 * Checks an uploaded cape like a skin (decodeUpload: the size on the PNG header before any
 * decoding), pads it to the layout and encodes it afresh, so nothing of the file but its pixels
 * is kept (clearTransparent, as for skins).
 */
export async function readCape(file: Buffer): Promise<Cape> {
  const pixels = clearTransparent(await decodeUpload(file, CAPE_MAX_BYTES, MAX_PIXELS, (w, h) => capeCanvas(w, h) !== null));
  const { scale } = capeCanvas(pixels.width, pixels.height)!;
  const full: Rgba = { width: 64 * scale, height: 32 * scale, data: Buffer.alloc(64 * scale * 32 * scale * 4) };
  for (let y = 0; y < pixels.height; y++) pixels.data.copy(full.data, y * full.width * 4, y * pixels.width * 4, (y + 1) * pixels.width * 4);
  return { ...full, png: await encodePng(full), hash: pixelHash(full) };
}
