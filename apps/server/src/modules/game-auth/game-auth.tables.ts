/** Tables of game login (Yggdrasil for authlib-injector, GravitLauncher); db/types.ts merges them. */
import type { Generated } from 'kysely';
import type { ProfileKeysTables } from './profile-keys.tables.ts';

export type GameTokenKind = 'yggdrasil' | 'gravit';

/**
 * A launcher's login, separate from site sessions: the game's access token is handed to the
 * game and to every server the player joins, so it must not open the site. Stored only as hashes.
 */
export interface GameTokensTable {
  /** sha256 of the access token. */
  access_hash: string;
  /** sha256 of GravitLauncher's refresh token; Yggdrasil refreshes with the access token itself. */
  refresh_hash: string | null;
  kind: GameTokenKind;
  user_id: number;
  /** The launcher's clientToken (Yggdrasil), kept as sent: refresh and validate compare it. */
  client_token: string | null;
  /** The profile's name when the token was issued: after a rename the token is only refreshable. */
  profile_name: string;
  created_at: number;
  /** Valid until then; afterwards only refreshable (the spec's "temporarily invalid"). */
  expires_at: number;
  /** After this, nothing: the launcher must ask for the password again. */
  refresh_until: number;
  /** 1 when the tokens carry the site's signature (game-tokens.ts); 0 for older ones. */
  signed: Generated<number>;
}

/** A client's join of a game server (session join), checked once by that server's hasJoined. */
export interface GameJoinsTable {
  server_id: string;
  user_id: number;
  kind: GameTokenKind;
  /** The address the join came from; hasJoined's optional ip must equal it. */
  ip: string | null;
  expires_at: number;
}

/** Keys the site creates once and every instance shares (the Yggdrasil signing key). */
export interface SiteKeysTable {
  name: string;
  private_pem: string;
  public_pem: string;
  created_at: number;
}

/** A texture's name before textures were named by their hash (texture-hashes.migration.ts): old URLs keep answering. */
export interface TextureAliasesTable {
  old_hash: string;
  new_hash: string;
  created_at: number;
}

export interface GameAuthTables extends ProfileKeysTables {
  game_tokens: GameTokensTable;
  game_joins: GameJoinsTable;
  site_keys: SiteKeysTable;
  texture_aliases: TextureAliasesTable;
}
