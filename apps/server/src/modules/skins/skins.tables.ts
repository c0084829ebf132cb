import type { SkinModel } from '@kubik/contract';

/** One row per distinct skin (by the hash of its pixels), shared by every player who wears it. */
export interface SkinsTable {
  hash: string;
  /** The re-encoded PNG: the uploaded pixels without any metadata. */
  png: Buffer;
  width: number;
  height: number;
  /** The model detected from the pixels. */
  model: SkinModel;
  created_at: number;
}

/** The skin a player wears; players without a row wear the site's default skin. */
export interface UserSkinsTable {
  user_id: number;
  skin_hash: string;
  /** The model the player chose (the detected one unless they switched). */
  model: SkinModel;
  updated_at: number;
}

export interface SkinsTables {
  skins: SkinsTable;
  user_skins: UserSkinsTable;
}
