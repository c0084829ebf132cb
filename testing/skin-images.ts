import { crc32, deflateSync } from 'node:zlib';

/*
 * Skins and hostile files made in the tests, so every test knows exactly which pixels it sent.
 * The PNG files are written here from the PNG specification (W3C, 3rd edition: signature,
 * chunks with a CRC-32 over type and data, IHDR, PLTE/tRNS, zlib-compressed IDAT of filtered
 * scanlines, IEND) with node:zlib's deflate and crc32 — as a paint program would write them, and
 * without the site's own PNG code or image library, which the tests check.
 */

export type Colour = readonly [number, number, number, number];

/** Pixels as 8-bit RGBA, row by row, the top row first. */
export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function blank(width: number, height: number): Rgba {
  return { width, height, data: Buffer.alloc(width * height * 4) };
}

export function fill(img: Rgba, x0: number, y0: number, w: number, h: number, [r, g, b, a]: Colour): Rgba {
  for (let y = y0; y < y0 + h; y++) {
    for (let x = x0; x < x0 + w; x++) {
      const i = (y * img.width + x) * 4;
      img.data[i] = r;
      img.data[i + 1] = g;
      img.data[i + 2] = b;
      img.data[i + 3] = a;
    }
  }
  return img;
}

export function pixelAt(img: Rgba, x: number, y: number): Colour {
  const i = (y * img.width + x) * 4;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!, img.data[i + 3]!];
}

/**
 * A wide-armed 64×64 (or 64×32) skin: every base-layer region opaque grey, the face a gradient
 * where every pixel differs (r = 10 + x·20, g = 10 + y·20), the hat layer transparent but for an
 * opaque red pixel at face (1,1) and a half-transparent blue one at face (6,2).
 */
export function testSkin(opts: { height?: 64 | 32; slim?: boolean; body?: Colour } = {}): Rgba {
  const height = opts.height ?? 64;
  const img = blank(64, height);
  const body = opts.body ?? [120, 120, 120, 255];
  fill(img, 0, 0, 32, 16, body); // head (both rows of faces)
  fill(img, 0, 16, 56, 16, body); // right leg, body, right arm
  if (height === 64) fill(img, 16, 48, 32, 16, body); // left leg, left arm
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) fill(img, 8 + x, 8 + y, 1, 1, [10 + x * 20, 10 + y * 20, 200, 255]);
  fill(img, 40 + 1, 8 + 1, 1, 1, [255, 0, 0, 255]);
  fill(img, 40 + 6, 8 + 2, 1, 1, [0, 0, 255, 128]);
  if (opts.slim)
    for (const [x, y, w, h] of [
      [50, 16, 2, 4],
      [54, 20, 2, 12],
      [42, 48, 2, 4],
      [46, 52, 2, 12],
    ] as const)
      fill(img, x, y, w, h, [0, 0, 0, 0]);
  return img;
}

export interface PngOptions {
  /** zlib level of the image data, 0 (stored) … 9; 6 by default, like libpng. */
  compressionLevel?: number;
  /** An indexed-colour file (colour type 3) with PLTE and tRNS; the image may hold at most 256 colours. */
  palette?: boolean;
}

/**
 * The image as a PNG file: 8-bit RGBA (colour type 6) or, with `palette`, 8-bit indexed colour.
 * Every scanline uses filter type 0 (None), which every decoder must read.
 */
export function toPng(img: Rgba, opts: PngOptions = {}): Promise<Buffer> {
  const { width, height, data } = img;
  let colourType = 6;
  let bytesPerPixel = 4;
  let pixels = data;
  const extra: Buffer[] = [];
  if (opts.palette) {
    const index = new Map<number, number>();
    const indexed = Buffer.alloc(width * height);
    for (let i = 0; i < width * height; i++) {
      const rgba = data.readUInt32BE(i * 4);
      let n = index.get(rgba);
      if (n === undefined) {
        n = index.size;
        if (n === 256) throw new Error('toPng: more than 256 colours for a palette');
        index.set(rgba, n);
      }
      indexed[i] = n;
    }
    const colours = [...index.keys()];
    const plte = Buffer.alloc(colours.length * 3);
    const trns = Buffer.alloc(colours.length);
    colours.forEach((rgba, n) => {
      plte.writeUIntBE(rgba >>> 8, n * 3, 3);
      trns[n] = rgba & 0xff;
    });
    extra.push(chunk('PLTE', plte));
    if (trns.some((a) => a !== 255)) extra.push(chunk('tRNS', trns));
    colourType = 3;
    bytesPerPixel = 1;
    pixels = indexed;
  }
  const stride = width * bytesPerPixel;
  const raw = Buffer.alloc(height * (1 + stride));
  for (let y = 0; y < height; y++) pixels.copy(raw, y * (1 + stride) + 1, y * stride, (y + 1) * stride);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = colourType;
  // compression 0 (deflate), filter method 0, no interlace
  const idat = deflateSync(raw, { level: opts.compressionLevel ?? 6 });
  return Promise.resolve(
    Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), ...extra, chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]),
  );
}

/** A chunk: data length, type, data, and the CRC-32 of type and data. */
export function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export function chunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let o = 8; o + 8 <= png.length; o += 12 + png.readUInt32BE(o)) types.push(png.toString('latin1', o + 4, o + 8));
  return types;
}

/** Inserts chunks right after IHDR (signature 8 bytes + IHDR 25 bytes). */
export function withChunksAfterHeader(png: Buffer, ...chunks: Buffer[]): Buffer {
  return Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)]);
}

/**
 * A decompression bomb: an IHDR that claims width×height 1-bit grey pixels and an IDAT that really
 * inflates to all of them (zeros compress about a thousand to one), so a decoder that trusted the
 * header would allocate width×height×4 bytes.
 */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc(height * (1 + Math.ceil(width / 8)));
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** An APNG: the acTL chunk that announces animation, inserted before the image data. */
export function animated(png: Buffer): Buffer {
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(2, 0); // frames
  actl.writeUInt32BE(0, 4); // plays forever
  return withChunksAfterHeader(png, chunk('acTL', actl));
}

export interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer | string;
}

/** A multipart/form-data body written by hand, so tests can also send broken ones. */
export function multipart(parts: Part[], boundary = 'kubikTestBoundary7MA4YWxk'): { payload: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const type = p.filename !== undefined ? `\r\nContent-Type: ${p.type ?? 'application/octet-stream'}` : '';
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`),
      Buffer.from(p.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export const skinForm = (file: Buffer, filename = 'skin.png', type = 'image/png') =>
  multipart([{ name: 'skin', filename, type, data: file }]);
