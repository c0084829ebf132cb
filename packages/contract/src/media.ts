import { z } from 'zod';

// Images the owner uploads (news, shop items, donate tiers, servers, pages, settings).

import { MEDIA_TYPES } from './media-limits.ts';

export * from './media-limits.ts';

export const MediaUploadResponse = z.object({
  /** A path on this site: /media/<sha256>.<ext> */
  url: z.string(),
  width: z.number(),
  height: z.number(),
  /** Bytes of the stored (re-encoded) file. */
  size: z.number(),
});
export type MediaUploadResponse = z.infer<typeof MediaUploadResponse>;

export const MediaUse = z.object({
  /** Where: «Новости», «Товары», … */
  section: z.string(),
  /** Which record: its title or name. */
  title: z.string(),
});
export type MediaUse = z.infer<typeof MediaUse>;

export const MediaItem = z.object({
  hash: z.string(),
  url: z.string(),
  type: z.enum(MEDIA_TYPES),
  width: z.number(),
  height: z.number(),
  size: z.number(),
  /** The name the file had on the uploader's computer. */
  name: z.string(),
  /** ISO 8601 */
  created_at: z.string(),
  /** Empty when nothing links to it: then it may be deleted. */
  used_in: z.array(MediaUse),
});
export type MediaItem = z.infer<typeof MediaItem>;
export const MediaList = z.array(MediaItem);

export const MediaHashParams = z.strictObject({
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'Некорректный идентификатор файла'),
});
