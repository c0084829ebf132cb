import { crc32 } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
}

/** Why a file is not a usable PNG; the caller turns it into a user-facing text. */
export type PngProblem = 'not-png' | 'broken' | 'animated';

export class PngError extends Error {
  constructor(readonly problem: PngProblem) {
    super(problem);
  }
}

// Allowed bit depths per colour type (PNG spec, table 11.1).
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/**
 * Reads the header and walks every chunk without inflating anything, so the dimensions are known
 * (and a decompression bomb can be refused) before any decoder allocates pixels. It also refuses
 * what a decoder would quietly accept: a file cut short (no IEND), a damaged chunk (bad CRC) and
 * an animated PNG (acTL), whose extra frames a skin cannot use.
 */
export function readPngHeader(buf: Buffer): PngHeader {
  if (buf.length < PNG_SIGNATURE.length || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new PngError('not-png');
  let offset = 8;
  let header: PngHeader | null = null;
  let sawData = false;
  for (;;) {
    if (offset + 12 > buf.length) throw new PngError('broken');
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > buf.length || !/^[A-Za-z]{4}$/.test(type)) throw new PngError('broken');
    const crc = buf.readUInt32BE(end - 4);
    if (crc32(buf.subarray(offset + 4, end - 4)) !== crc) throw new PngError('broken');
    const data = buf.subarray(offset + 8, end - 4);

    if (!header) {
      if (type !== 'IHDR' || length !== 13) throw new PngError('broken');
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8]!, colorType: data[9]! };
      const compression = data[10];
      const filter = data[11];
      const interlace = data[12]!;
      if (
        header.width === 0 ||
        header.height === 0 ||
        !DEPTHS[header.colorType]?.includes(header.bitDepth) ||
        compression !== 0 ||
        filter !== 0 ||
        interlace > 1
      ) {
        throw new PngError('broken');
      }
    } else if (type === 'acTL') {
      throw new PngError('animated');
    } else if (type === 'IDAT') {
      sawData = true;
    } else if (type === 'IEND') {
      if (!sawData) throw new PngError('broken');
      return header;
    }
    offset = end;
  }
}
