import { sign, type KeyObject } from 'node:crypto';

// Minecraft's profile keys (chat signing, 1.19+) as Mojang's services issue them and the game
// checks them: what is signed, and the text the keys travel in.

/** Java's Base64.getMimeEncoder(76, "\n"): standard base64 in lines of 76, no newline after the last. */
export function mime76(der: Buffer): string {
  return der.toString('base64').replace(/(.{76})(?=.)/g, '$1\n');
}

/**
 * The PEM-like text of net.minecraft.util.Crypt: the labels say "RSA PUBLIC KEY" / "RSA PRIVATE
 * KEY" but wrap X.509 SubjectPublicKeyInfo / PKCS#8 DER. The game finds the key by these exact
 * labels (with the usual "PUBLIC KEY" it decodes the whole text and fails), so Mojang's answer
 * and ours use them.
 */
export function minecraftPem(kind: 'PUBLIC' | 'PRIVATE', der: Buffer): string {
  return `-----BEGIN RSA ${kind} KEY-----\n${mime76(der)}\n-----END RSA ${kind} KEY-----\n`;
}

/** 1.19.0 (publicKeySignature): the UTF-8 text of the expiry in epoch milliseconds followed by the public key's Minecraft PEM. */
export function keyPayloadV1(expiresAt: number, spki: Buffer): Buffer {
  return Buffer.from(`${expiresAt}${minecraftPem('PUBLIC', spki)}`, 'utf8');
}

/**
 * 1.19.1+ (publicKeySignatureV2): the profile's UUID (16 bytes), the expiry in epoch milliseconds
 * (signed 64-bit big-endian) and the public key's DER — the key is bound to one player.
 */
export function keyPayloadV2(profileUuid: string, expiresAt: number, spki: Buffer): Buffer {
  const hex = profileUuid.replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error('not a UUID');
  const head = Buffer.alloc(24);
  Buffer.from(hex, 'hex').copy(head, 0);
  head.writeBigInt64BE(BigInt(expiresAt), 16);
  return Buffer.concat([head, spki]);
}

/** SHA1withRSA (PKCS#1 v1.5), base64: how Mojang signs both payloads, with the key in publickeys' playerCertificateKeys. */
export function signSha1(payload: Buffer, key: KeyObject): string {
  return sign('sha1', payload, key).toString('base64');
}
