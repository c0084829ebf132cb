import { createHash } from 'node:crypto';
import {
  MEDIA_MAX_BYTES,
  MEDIA_MAX_PIXELS,
  MEDIA_MAX_SIDE,
  MEDIA_TEXTS,
  type ErrorCode,
  type MediaItem,
  type MediaType,
  type MediaUploadResponse,
  type MediaUse,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { HttpError, conflict, notFound } from '../../lib/errors.ts';
import { ImageHeaderError, readImageHeader, type ImageHeader } from '../../lib/image-header.ts';
import { loadSharp } from '../../lib/sharp.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { User } from '../users/users.repo.ts';
import * as repo from './media.repo.ts';

export const MEDIA_EXT: Record<MediaType, string> = { png: 'png', jpeg: 'jpg', webp: 'webp', gif: 'gif' };
export const MEDIA_MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

export const mediaUrl = (hash: string, type: MediaType) => `/media/${hash}.${MEDIA_EXT[type]}`;

/** Any address of an uploaded file, relative or absolute: the hash names it. */
const MEDIA_REF = /\/media\/([0-9a-f]{64})\b/g;

export interface EncodedImage {
  type: MediaType;
  bytes: Buffer;
  width: number;
  height: number;
}

const invalid = (text: string, code: ErrorCode, status = 400) => new HttpError(status, text, { code, field: 'file' });

/**
 * Checks an upload and encodes it afresh. The byte size, the type (by content) and the pixel
 * counts are checked on the header before anything is decoded; sharp then decodes under its own
 * pixel cap as a second fence. The output keeps the format (animation too) but nothing else of the
 * file: EXIF (with GPS), comments and profiles are dropped, a JPEG's orientation is applied first.
 */
export async function encodeUpload(file: Buffer): Promise<EncodedImage> {
  if (file.length > MEDIA_MAX_BYTES) throw invalid(MEDIA_TEXTS.tooBig, 'file_too_large', 413);
  let header: ImageHeader;
  try {
    header = readImageHeader(file);
  } catch (err) {
    if (!(err instanceof ImageHeaderError)) throw err;
    if (err.problem === 'unknown-type') throw invalid(MEDIA_TEXTS.wrongType, 'wrong_type', 415);
    if (err.problem === 'animated-png') throw invalid(MEDIA_TEXTS.animatedPng, 'animated_png');
    throw invalid(MEDIA_TEXTS.broken, 'broken_image');
  }
  if (header.width > MEDIA_MAX_SIDE || header.height > MEDIA_MAX_SIDE) throw invalid(MEDIA_TEXTS.tooLarge, 'image_too_large');
  if (header.width * header.height * header.frames > MEDIA_MAX_PIXELS) throw invalid(MEDIA_TEXTS.tooManyPixels, 'image_too_large');

  const animated = header.frames > 1;
  try {
    const sharp = await loadSharp();
    let image = sharp(file, { animated, limitInputPixels: MEDIA_MAX_PIXELS, failOn: 'error', sequentialRead: true });
    if (!animated) image = image.rotate();
    switch (header.type) {
      case 'png':
        image = image.png({ compressionLevel: 9, adaptiveFiltering: true });
        break;
      case 'jpeg':
        image = image.jpeg({ quality: 88, mozjpeg: true });
        break;
      case 'webp':
        image = image.webp({ quality: 88 });
        break;
      case 'gif':
        image = image.gif();
        break;
    }
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    return { type: header.type, bytes: data, width: info.width, height: info.pageHeight ?? info.height };
  } catch {
    throw invalid(MEDIA_TEXTS.broken, 'broken_image');
  }
}

/** Where each uploaded file is linked from: every text the owner edits that may hold an image address. */
async function findUses(db: Db): Promise<Map<string, MediaUse[]>> {
  const uses = new Map<string, MediaUse[]>();
  const scan = (section: string, title: string, ...texts: (string | null | undefined)[]) => {
    const seen = new Set<string>();
    for (const text of texts) {
      if (!text) continue;
      for (const m of text.matchAll(MEDIA_REF)) seen.add(m[1]!);
    }
    for (const hash of seen) {
      const list = uses.get(hash) ?? [];
      list.push({ section, title });
      uses.set(hash, list);
    }
  };
  for (const r of await repo.newsTexts(db)) scan('Новости', r.title, r.image_url, r.content);
  for (const r of await repo.shopItemTexts(db)) scan('Товары', r.name, r.icon, r.description);
  for (const r of await repo.donateTierTexts(db)) scan('Донат', r.title, r.image_url, r.content, r.kits_json, r.features_json);
  for (const r of await repo.serverTexts(db)) scan('Серверы', r.name, r.image_url, r.description);
  for (const r of await repo.settingTexts(db)) scan('Настройки', r.key, r.value);
  for (const r of await repo.pageTexts(db))
    scan('Страницы', String(r.title ?? r.slug ?? ''), ...Object.values(r).map((v) => (typeof v === 'string' ? v : null)));
  return uses;
}

export function createMediaService(ctx: AppContext) {
  return {
    async upload(actor: User, file: Buffer, filename: string): Promise<MediaUploadResponse> {
      const image = await encodeUpload(file);
      const hash = createHash('sha256').update(image.bytes).digest('hex');
      const url = mediaUrl(hash, image.type);
      const name = (filename || 'image').slice(0, 255);
      await ctx.db.transaction().execute(async (trx) => {
        const inserted = await repo.insertMediaUnlessStored(trx, {
          hash,
          type: image.type,
          bytes: image.bytes,
          size: image.bytes.length,
          width: image.width,
          height: image.height,
          name,
          created_by: actor.id,
          created_at: Date.now(),
        });
        if (inserted)
          await recordAudit(trx, {
            actorId: actor.id,
            action: 'media.upload',
            entity: 'media',
            entityId: hash,
            after: { url, name, width: image.width, height: image.height, size: image.bytes.length },
          });
      });
      return { url, width: image.width, height: image.height, size: image.bytes.length };
    },

    async list(): Promise<MediaItem[]> {
      const rows = await repo.listMedia(ctx.db);
      const uses = await findUses(ctx.db);
      return rows.map((r) => ({
        hash: r.hash,
        url: mediaUrl(r.hash, r.type),
        type: r.type,
        size: Number(r.size),
        width: r.width,
        height: r.height,
        name: r.name,
        created_at: new Date(Number(r.created_at)).toISOString(),
        used_in: uses.get(r.hash) ?? [],
      }));
    },

    /** Only a file nothing links to; a link added while this runs is the owner's race to lose (the page shows a missing image). */
    async remove(actor: User, hash: string): Promise<void> {
      const used = (await findUses(ctx.db)).get(hash);
      if (used?.length) throw conflict(MEDIA_TEXTS.inUse, { code: 'media_in_use', extra: { used_in: used } });
      await ctx.db.transaction().execute(async (trx) => {
        const row = await repo.deleteMedia(trx, hash);
        if (!row) throw notFound(MEDIA_TEXTS.notFound);
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'media.delete',
          entity: 'media',
          entityId: hash,
          before: { url: mediaUrl(hash, row.type), name: row.name, width: row.width, height: row.height, size: Number(row.size) },
        });
      });
    },

    /**
     * The stored file for GET /media/<hash>.<ext>; undefined when there is none of that type.
     * Read from the database each time (browsers keep it for a year), so a delete is seen by every instance.
     */
    async file(hash: string, ext: string): Promise<Buffer | undefined> {
      const row = await repo.mediaFile(ctx.db, hash);
      if (!row || MEDIA_EXT[row.type] !== ext) return undefined;
      return Buffer.from(row.bytes);
    },
  };
}
