import { readPngHeader, PngError } from './skin/png.ts';

/** What the header of an uploaded picture says, read without decoding any pixels. */
export interface ImageHeader {
  type: 'png' | 'jpeg' | 'webp' | 'gif';
  width: number;
  height: number;
  /** 1 for a still picture; an animated GIF or WebP decodes every frame. */
  frames: number;
}

export type ImageHeaderProblem = 'unknown-type' | 'broken' | 'animated-png';

export class ImageHeaderError extends Error {
  constructor(readonly problem: ImageHeaderProblem) {
    super(problem);
  }
}

const broken = () => new ImageHeaderError('broken');

/**
 * Recognises PNG, JPEG, WebP and GIF by their bytes (never by the name or the declared type) and
 * reads their dimensions and frame count from the headers alone, so a file claiming 30000×30000
 * pixels in a hundred bytes (a decompression bomb) is refused before a decoder allocates anything.
 */
export function readImageHeader(buf: Buffer): ImageHeader {
  if (buf.length >= 8 && buf[0] === 0x89 && buf.toString('latin1', 1, 4) === 'PNG') {
    try {
      const h = readPngHeader(buf);
      return { type: 'png', width: h.width, height: h.height, frames: 1 };
    } catch (err) {
      if (err instanceof PngError) throw err.problem === 'animated' ? new ImageHeaderError('animated-png') : broken();
      throw err;
    }
  }
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return readJpeg(buf);
  if (buf.length >= 6 && (buf.toString('latin1', 0, 6) === 'GIF87a' || buf.toString('latin1', 0, 6) === 'GIF89a')) return readGif(buf);
  if (buf.length >= 16 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') return readWebp(buf);
  throw new ImageHeaderError('unknown-type');
}

/** The first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC) holds the size. */
function readJpeg(b: Buffer): ImageHeader {
  let o = 2;
  while (o + 4 <= b.length) {
    if (b[o] !== 0xff) throw broken();
    const marker = b[o + 1]!;
    if (marker === 0xff) {
      o++;
      continue;
    }
    o += 2;
    // Markers without a length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue;
    // Image data or the end before any frame header.
    if (marker === 0xda || marker === 0xd9) throw broken();
    if (o + 2 > b.length) throw broken();
    const length = b.readUInt16BE(o);
    if (length < 2 || o + length > b.length) throw broken();
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (length < 8) throw broken();
      const height = b.readUInt16BE(o + 3);
      const width = b.readUInt16BE(o + 5);
      // A height of 0 is defined later (DNL): refused rather than trusted.
      if (width === 0 || height === 0) throw broken();
      return { type: 'jpeg', width, height, frames: 1 };
    }
    o += length;
  }
  throw broken();
}

/** The logical screen's size, and every frame walked (without decompressing) to count them and check their own sizes. */
function readGif(b: Buffer): ImageHeader {
  if (b.length < 13) throw broken();
  const width = b.readUInt16LE(6);
  const height = b.readUInt16LE(8);
  if (width === 0 || height === 0) throw broken();
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  let o = 13 + colourTable(b[10]!);
  let frames = 0;
  let right = width;
  let bottom = height;
  const skipSubBlocks = () => {
    for (;;) {
      if (o >= b.length) throw broken();
      const size = b[o]!;
      o += 1 + size;
      if (size === 0) return;
    }
  };
  for (;;) {
    if (o >= b.length) {
      // Some encoders leave out the trailer; what came before is still whole frames.
      if (frames > 0) break;
      throw broken();
    }
    const block = b[o]!;
    if (block === 0x3b) break;
    if (block === 0x21) {
      o += 2;
      skipSubBlocks();
    } else if (block === 0x2c) {
      if (o + 10 > b.length) throw broken();
      right = Math.max(right, b.readUInt16LE(o + 1) + b.readUInt16LE(o + 5));
      bottom = Math.max(bottom, b.readUInt16LE(o + 3) + b.readUInt16LE(o + 7));
      o += 10 + colourTable(b[o + 9]!) + 1;
      skipSubBlocks();
      frames++;
    } else {
      throw broken();
    }
  }
  if (frames === 0) throw broken();
  // A frame reaching past the screen counts at its own extent: the limits must hold for it too.
  return { type: 'gif', width: right, height: bottom, frames };
}

function readWebp(b: Buffer): ImageHeader {
  const chunks: { type: string; data: Buffer }[] = [];
  let o = 12;
  const end = Math.min(b.length, 8 + b.readUInt32LE(4));
  while (o + 8 <= end) {
    const type = b.toString('latin1', o, o + 4);
    const size = b.readUInt32LE(o + 4);
    if (o + 8 + size > end) throw broken();
    chunks.push({ type, data: b.subarray(o + 8, o + 8 + size) });
    o += 8 + size + (size & 1);
  }
  const first = chunks[0];
  if (!first) throw broken();
  const d = first.data;
  if (first.type === 'VP8 ') {
    if (d.length < 10 || d[3] !== 0x9d || d[4] !== 0x01 || d[5] !== 0x2a) throw broken();
    return still(d.readUInt16LE(6) & 0x3fff, d.readUInt16LE(8) & 0x3fff);
  }
  if (first.type === 'VP8L') {
    if (d.length < 5 || d[0] !== 0x2f) throw broken();
    const bits = d.readUInt32LE(1);
    return still((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (first.type === 'VP8X') {
    if (d.length < 10) throw broken();
    const width = d.readUIntLE(4, 3) + 1;
    const height = d.readUIntLE(7, 3) + 1;
    const animated = (d[0]! & 0x02) !== 0;
    const frames = animated ? chunks.filter((c) => c.type === 'ANMF').length : 1;
    if (frames === 0 || !chunks.some((c) => c.type === 'ANMF' || c.type === 'VP8 ' || c.type === 'VP8L')) throw broken();
    return { type: 'webp', width, height, frames };
  }
  throw broken();

  function still(width: number, height: number): ImageHeader {
    if (width === 0 || height === 0) throw broken();
    return { type: 'webp', width, height, frames: 1 };
  }
}
