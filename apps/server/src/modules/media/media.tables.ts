import type { MediaType } from '@kubik/contract';

/**
 * Uploaded images, kept in the database (not on one instance's disk) so every instance serves
 * them. Named by the sha256 of the stored bytes: the same picture uploaded twice is one row.
 */
export interface MediaTable {
  hash: string;
  type: MediaType;
  /** The re-encoded file: the uploaded pixels, no metadata. */
  bytes: Buffer;
  size: number;
  width: number;
  height: number;
  /** The file's name on the uploader's computer (shown in the media list only). */
  name: string;
  created_by: number | null;
  created_at: number;
}

export interface MediaTables {
  media: MediaTable;
}
