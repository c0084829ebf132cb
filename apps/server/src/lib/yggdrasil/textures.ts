import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

/** A UUID without dashes, as Yggdrasil writes profile and user ids. */
export function unhyphenated(uuid: string): string {
  return uuid.replaceAll('-', '').toLowerCase();
}

/** 8-4-4-4-12, as Java's UUID.fromString (GravitLauncher) requires. */
export function hyphenated(uuid: string): string {
  const hex = unhyphenated(uuid);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface TextureRef {
  url: string;
  /** Skins only; absent means the classic (wide-arm) model. */
  slim?: boolean;
}

export interface TexturesPayload {
  profileId: string;
  profileName: string;
  skin: TextureRef | null;
  cape: TextureRef | null;
  timestamp: number;
}

/**
 * The `textures` property value: base64 of the JSON the game decodes (authlib-injector's
 * specification, "textures"). Only SKIN and CAPE are written; metadata only for slim skins.
 */
export function texturesValue(p: TexturesPayload): string {
  const textures: Record<string, unknown> = {};
  if (p.skin) textures.SKIN = p.skin.slim ? { url: p.skin.url, metadata: { model: 'slim' } } : { url: p.skin.url };
  if (p.cape) textures.CAPE = { url: p.cape.url };
  const json = JSON.stringify({ timestamp: p.timestamp, profileId: unhyphenated(p.profileId), profileName: p.profileName, textures });
  return Buffer.from(json, 'utf8').toString('base64');
}

/** SHA1withRSA (PKCS#1 v1.5) over the UTF-8 bytes of the property value, base64: what the game verifies. */
export function signProperty(value: string, privateKey: KeyObject | string): string {
  const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
  return sign('sha1', Buffer.from(value, 'utf8'), key).toString('base64');
}
