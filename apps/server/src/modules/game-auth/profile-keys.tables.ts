/**
 * A player's chat-signing key pair (Minecraft 1.19+ "profile keys"), issued by
 * POST …/minecraftservices/player/certificates. One row per player: the pair handed out until
 * `refreshed_after`, then replaced. The private key is kept because the protocol hands the same
 * pair back on every call until then (see profile-keys.service.ts for why it is not sealed).
 */
export interface ProfileKeysTable {
  user_id: number;
  /** PKCS#8 DER, base64. */
  private_key: string;
  /** X.509 SubjectPublicKeyInfo DER, base64. */
  public_key: string;
  /** SHA1withRSA by the site's Yggdrasil key over Minecraft 1.19.0's payload, base64. */
  signature_v1: string;
  /** The same over 1.19.1+'s payload (profile UUID, expiry, key), base64. */
  signature_v2: string;
  issued_at: number;
  /** From then on a call gets a new pair. */
  refreshed_after: number;
  /** Servers refuse the key after this (epoch ms, whole milliseconds: it is signed as such). */
  expires_at: number;
}

export interface ProfileKeysTables {
  profile_keys: ProfileKeysTable;
}
