import { SUPPORT_IMAGE_MAX_BYTES, SUPPORT_IMAGE_MAX_PIXELS, SUPPORT_IMAGE_MAX_SIDE, SUPPORT_TEXTS, type ErrorCode } from '@kubik/contract';
import { HttpError } from '../../lib/errors.ts';
import { ImageHeaderError, readImageHeader, type ImageHeader } from '../../lib/image-header.ts';
import { loadSharp } from '../../lib/sharp.ts';

export type AttachmentType = 'png' | 'jpeg' | 'webp';
export const ATTACHMENT_MIME: Record<AttachmentType, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export interface EncodedAttachment {
  type: AttachmentType;
  bytes: Buffer;
  width: number;
  height: number;
}

const refuse = (text: string, code: ErrorCode, status = 400) => new HttpError(status, text, { code, field: 'file' });

/**
 * Checks a picture a player (or staff) attaches and encodes it afresh, as media uploads are: the
 * byte size, the type by content and the pixel count are read from the header before anything is
 * decoded, so a decompression bomb (a few kilobytes claiming 30000×30000) is refused without
 * allocating its pixels; sharp then decodes under its own pixel cap as a second fence. Still
 * pictures only (a screenshot is what support needs): GIF and animations are refused. The stored
 * file is the re-encoded one: EXIF with its GPS position, comments and profiles are dropped, a
 * JPEG's orientation applied first, and whatever a crafted file carried past its pixels is gone.
 */
export async function encodeAttachment(file: Buffer): Promise<EncodedAttachment> {
  if (file.length > SUPPORT_IMAGE_MAX_BYTES) throw refuse(SUPPORT_TEXTS.tooBig, 'file_too_large', 413);
  let header: ImageHeader;
  try {
    header = readImageHeader(file);
  } catch (err) {
    if (!(err instanceof ImageHeaderError)) throw err;
    if (err.problem === 'unknown-type') throw refuse(SUPPORT_TEXTS.wrongType, 'wrong_type', 415);
    if (err.problem === 'animated-png') throw refuse(SUPPORT_TEXTS.animated, 'animated_png');
    throw refuse(SUPPORT_TEXTS.broken, 'broken_image');
  }
  if (header.type === 'gif') throw refuse(SUPPORT_TEXTS.wrongType, 'wrong_type', 415);
  if (header.frames > 1) throw refuse(SUPPORT_TEXTS.animated, 'animated_png');
  if (
    header.width > SUPPORT_IMAGE_MAX_SIDE ||
    header.height > SUPPORT_IMAGE_MAX_SIDE ||
    header.width * header.height > SUPPORT_IMAGE_MAX_PIXELS
  )
    throw refuse(SUPPORT_TEXTS.tooLarge, 'image_too_large');
  const type: AttachmentType = header.type;
  try {
    const sharp = await loadSharp();
    let image = sharp(file, { limitInputPixels: SUPPORT_IMAGE_MAX_PIXELS, failOn: 'error', sequentialRead: true }).rotate();
    if (type === 'png') image = image.png({ compressionLevel: 9, adaptiveFiltering: true });
    else if (type === 'jpeg') image = image.jpeg({ quality: 85, mozjpeg: true });
    else image = image.webp({ quality: 85 });
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    return { type, bytes: data, width: info.width, height: info.height };
  } catch {
    throw refuse(SUPPORT_TEXTS.broken, 'broken_image');
  }
}

/** The name to show: the uploader's file name without a path, control characters or excess length. */
export function displayName(filename: string, type: AttachmentType): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .trim()
    .slice(0, 120);
  return clean || `картинка.${type === 'jpeg' ? 'jpg' : type}`;
}
