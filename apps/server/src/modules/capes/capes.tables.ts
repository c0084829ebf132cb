/** Tables of the capes feature; db/types.ts merges them into the Database type. */
import type { Generated } from 'kysely';

/** A cape the admin uploaded, stored once by the hash of its pixels (like skins). */
export interface CapesTable {
  id: Generated<number>;
  title: string;
  hash: string;
  /** The re-encoded PNG: the uploaded pixels, padded to the 64×32 layout, without metadata. */
  png: Buffer;
  width: number;
  height: number;
  created_at: number;
}

/** Who may wear a cape: one player (user_id) or the holders of a donate tier (tier_id). */
export interface CapeGrantsTable {
  id: Generated<number>;
  cape_id: number;
  user_id: number | null;
  tier_id: number | null;
  created_at: number;
}

/** The cape a player chose; shown only while a grant still allows it. */
export interface UserCapesTable {
  user_id: number;
  cape_id: number;
  updated_at: number;
}

export interface CapesTables {
  capes: CapesTable;
  cape_grants: CapeGrantsTable;
  user_capes: UserCapesTable;
}
