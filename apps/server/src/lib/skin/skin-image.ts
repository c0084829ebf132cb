import { createHash } from 'node:crypto';
import { SKIN_MAX_BYTES, SKIN_MAX_WIDTH, SKIN_MIN_WIDTH, type SkinModel } from '@kubik/contract';
import type { OutputInfo } from 'sharp';
import { loadSharp } from '../sharp.ts';
import { readPngHeader, PngError, type PngProblem } from './png.ts';

/** Decoded RGBA pixels, 8 bits per channel, row after row. */
export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

export interface Skin extends Rgba {
  /** The re-encoded file: the same pixels, no metadata. */
  png: Buffer;
  /** pixelHash of the pixels: files that differ only in metadata or compression share it. */
  hash: string;
  model: SkinModel;
}

export const MAX_SKIN_PIXELS = SKIN_MAX_WIDTH * SKIN_MAX_WIDTH;

export type SkinProblem = PngProblem | 'too-big' | 'bad-size';

export class SkinError extends Error {
  constructor(
    readonly problem: SkinProblem,
    readonly width = 0,
    readonly height = 0,
  ) {
    super(problem);
  }
}

/** 64 or an HD multiple of it up to 512, square (1.8+) or 2:1 (the legacy layout). */
export function isSkinSize(width: number, height: number): boolean {
  return width >= SKIN_MIN_WIDTH && width <= SKIN_MAX_WIDTH && width % SKIN_MIN_WIDTH === 0 && (height === width || height * 2 === width);
}

const DECODE = { limitInputPixels: MAX_SKIN_PIXELS, failOn: 'warning', ignoreIcc: true, autoOrient: false } as const;

/**
 * Checks an uploaded file and turns it into a stored skin. The size rules are applied to the
 * header before decoding (a 100-byte file can claim 30000×30000), then sharp decodes with its own
 * pixel cap as a second fence, and the pixels are encoded afresh so nothing of the original file
 * but its pixels is kept (clearTransparent: not even the colour hidden under fully transparent
 * ones). Embedded colour profiles are ignored: the game does not apply them.
 */
export async function readSkin(file: Buffer): Promise<Skin> {
  const pixels = clearTransparent(await decodeUpload(file, SKIN_MAX_BYTES, MAX_SKIN_PIXELS, isSkinSize));
  return { ...pixels, png: await encodePng(pixels), hash: pixelHash(pixels), model: detectModel(pixels) };
}

/**
 * An uploaded PNG's pixels, its size checked by `sizeOk` on the header before anything is
 * decoded; sharp then decodes under its own pixel cap, and the caller encodes the pixels afresh.
 */
export async function decodeUpload(
  file: Buffer,
  maxBytes: number,
  maxPixels: number,
  sizeOk: (width: number, height: number) => boolean,
): Promise<Rgba> {
  if (file.length > maxBytes) throw new SkinError('too-big');
  let header;
  try {
    header = readPngHeader(file);
  } catch (err) {
    if (err instanceof PngError) throw new SkinError(err.problem);
    throw err;
  }
  if (!sizeOk(header.width, header.height)) throw new SkinError('bad-size', header.width, header.height);

  let decoded: { data: Buffer; info: OutputInfo };
  try {
    const sharp = await loadSharp();
    decoded = await sharp(file, { ...DECODE, limitInputPixels: maxPixels })
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new SkinError('broken');
  }
  const { width, height, channels } = decoded.info;
  if (width !== header.width || height !== header.height || channels !== 4) throw new SkinError('broken');
  return { width, height, data: decoded.data };
}

export async function encodePng({ width, height, data }: Rgba): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(data, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 9, adaptiveFiltering: true, palette: false })
    .toBuffer();
}

export async function decodePng(png: Buffer): Promise<Rgba> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(png, DECODE).ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/**
 * A texture's hash, as authlib-injector's reference server (yggdrasil-mock) computes it and its
 * test suite checks in every texture URL: SHA-256 over the width and the height (32-bit big-endian)
 * and then every pixel as A, R, G, B, column by column (x outer, y inner), a fully transparent
 * pixel counting as 0,0,0,0. It names the stored file and ends the texture's URL; the game caches
 * textures by that last URL segment. The rule is fixed by the suite; a migration moved stored
 * textures to it (game-auth/texture-hashes.migration.ts), so it must not change again.
 */
export function pixelHash({ width, height, data }: Rgba): string {
  const out = Buffer.alloc(8 + width * height * 4);
  out.writeUInt32BE(width, 0);
  out.writeUInt32BE(height, 4);
  let o = 8;
  for (let x = 0; x < width; x++) {
    for (let i = x * 4; i < data.length; i += width * 4, o += 4) {
      const a = data[i + 3]!;
      if (a === 0) continue; // already zero
      out[o] = a;
      out[o + 1] = data[i]!;
      out[o + 2] = data[i + 1]!;
      out[o + 3] = data[i + 2]!;
    }
  }
  return createHash('sha256').update(out).digest('hex');
}

/**
 * Sets the colour of every fully transparent pixel to 0,0,0. pixelHash does not see that colour,
 * so two files differing only there share a hash, and the hash is the storage key and the game's
 * cache key: cleared, one hash is exactly one file. (Editors that erase to 0,0,0,0 — most of
 * them — produce such files already.)
 */
export function clearTransparent(img: Rgba): Rgba {
  const { data } = img;
  for (let i = 0; i < data.length; i += 4) if (data[i + 3] === 0) data.writeUInt32BE(0, i);
  return img;
}

/** Whether any pixel in the rectangle (in 64-wide skin units, scaled to the skin) is not fully opaque. */
function anyTransparent(img: Rgba, x0: number, y0: number, w: number, h: number, scale = img.width / 64): boolean {
  for (let y = y0 * scale; y < (y0 + h) * scale; y++) {
    for (let x = x0 * scale; x < (x0 + w) * scale; x++) {
      if (img.data[(y * img.width + x) * 4 + 3] !== 255) return true;
    }
  }
  return false;
}

function allColour(img: Rgba, rects: number[][], rgb: number): boolean {
  const scale = img.width / 64;
  for (const [x0, y0, w, h] of rects) {
    for (let y = y0! * scale; y < (y0! + h!) * scale; y++) {
      for (let x = x0! * scale; x < (x0! + w!) * scale; x++) {
        const i = (y * img.width + x) * 4;
        if (img.data[i] !== rgb || img.data[i + 1] !== rgb || img.data[i + 2] !== rgb || img.data[i + 3] !== 255) return false;
      }
    }
  }
  return true;
}

// The strips a slim (3-pixel) arm leaves unused next to each arm's top, bottom and back faces.
const SLIM_UNUSED = [
  [50, 16, 2, 4],
  [54, 20, 2, 12],
  [42, 48, 2, 4],
  [46, 52, 2, 12],
];

/**
 * The same rule as skinview3d's auto-detection (skinview-utils inferModelType), so the stored
 * model and the preview agree: a transparent pixel in a strip a wide arm would use, or strips all
 * black or all white, mean slim arms. Legacy 64×32 skins predate slim arms and are always default.
 */
export function detectModel(img: Rgba): SkinModel {
  if (img.height !== img.width) return 'default';
  const slim =
    SLIM_UNUSED.some(([x, y, w, h]) => anyTransparent(img, x!, y!, w!, h!)) ||
    allColour(img, SLIM_UNUSED, 0) ||
    allColour(img, SLIM_UNUSED, 255);
  return slim ? 'slim' : 'default';
}

/**
 * Old editors filled the whole texture with an opaque background, which the game would draw as a
 * box over the head. Like the game and skinview3d (fixOpaqueSkin), an image without a single
 * transparent pixel (in its top half, for legacy skins) has its hat layer ignored.
 */
function hatIsUsable(img: Rgba): boolean {
  return anyTransparent(img, 0, 0, 64, img.height === img.width ? 64 : 32);
}

/**
 * The avatar: the 8×8 face at (8,8) with the hat layer at (40,8) drawn over it, scaled to
 * size×size by nearest neighbour so the pixels stay square. The face itself is drawn opaque,
 * as in the game, whatever its alpha.
 */
export function renderHead(img: Rgba, size: number): Rgba {
  const scale = img.width / 64;
  const face = 8 * scale;
  const hat = hatIsUsable(img);
  const out = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    const sy = Math.floor((y * face) / size) + 8 * scale;
    for (let x = 0; x < size; x++) {
      const sx = Math.floor((x * face) / size);
      const f = (sy * img.width + sx + 8 * scale) * 4;
      let r = img.data[f]!;
      let g = img.data[f + 1]!;
      let b = img.data[f + 2]!;
      if (hat) {
        const h = (sy * img.width + sx + 40 * scale) * 4;
        const a = img.data[h + 3]!;
        if (a > 0) {
          r = Math.round((img.data[h]! * a + r * (255 - a)) / 255);
          g = Math.round((img.data[h + 1]! * a + g * (255 - a)) / 255);
          b = Math.round((img.data[h + 2]! * a + b * (255 - a)) / 255);
        }
      }
      const o = (y * size + x) * 4;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = 255;
    }
  }
  return { width: size, height: size, data: out };
}
