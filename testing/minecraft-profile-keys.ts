import { createPrivateKey, createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * The game's side of profile keys (Minecraft 1.19+ secure chat), from decompiled authlib and
 * client code:
 * - authlib's MinecraftClient POSTs `/player/certificates` with `Authorization: Bearer <access
 *   token>`, `Content-Type: application/json; charset=utf-8` and an EMPTY body (Content-Length 0);
 *   a status of 400 or more is an error whose JSON body it reads;
 * - net.minecraft.util.Crypt finds a key by the exact text `-----BEGIN RSA PUBLIC KEY-----` /
 *   `-----BEGIN RSA PRIVATE KEY-----`, takes what follows up to the footer's first character,
 *   decodes it with Java's MIME base64 decoder (which skips anything outside the alphabet) and
 *   reads X.509 / PKCS#8 DER; with another label the whole text is decoded and fails;
 * - expiresAt / refreshedAfter are ISO-8601 instants; the signatures base64;
 * - a server (and the client for itself) accepts a key when the V2 signature verifies with one
 *   of the services' `playerCertificateKeys` (SHA1withRSA over UUID ‖ expiry millis ‖ key DER)
 *   and the key has not expired (Instant.toEpochMilli: sub-millisecond digits are dropped).
 */

export interface PlayerKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicDer: Buffer;
  signatureV1: Buffer;
  signatureV2: Buffer;
  expiresAt: Date;
  refreshedAfter: Date;
}

export class ServicesFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body}`);
  }
}

/** Java's Base64.getMimeDecoder(): characters outside the alphabet are skipped, padding must still be right. */
function mimeDecode(text: string): Buffer {
  const clean = text.replace(/[^A-Za-z0-9+/=]/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.replace(/=+$/, '').length % 4 === 1) throw new Error('Illegal base64 character');
  return Buffer.from(clean, 'base64');
}

/** Crypt's key reading: the text between the exact header and the footer (its first '-' included). */
export function minecraftKeyDer(text: string, kind: 'PUBLIC' | 'PRIVATE'): Buffer {
  const header = `-----BEGIN RSA ${kind} KEY-----`;
  const footer = `-----END RSA ${kind} KEY-----`;
  let body = text;
  const at = text.indexOf(header);
  if (at !== -1) {
    const start = at + header.length;
    body = text.substring(start, text.indexOf(footer, start) + 1);
  }
  return mimeDecode(body);
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function instant(value: unknown, what: string): Date {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) throw new Error(`${what}: not an ISO-8601 instant`);
  return new Date(value);
}

function base64Field(value: unknown, what: string): Buffer {
  if (typeof value !== 'string' || value === '') throw new Error(`${what}: missing`);
  return mimeDecode(value);
}

/** What the game does at start when it has no key pair (or its pair is due for refresh). */
export async function fetchPlayerKeys(certificatesUrl: string, accessToken: string): Promise<PlayerKeys> {
  const res = await fetch(certificatesUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=utf-8', 'content-length': '0' },
    body: '',
  });
  const text = await res.text();
  if (res.status >= 400) throw new ServicesFailure(res.status, text);
  const r = JSON.parse(text) as Record<string, unknown> & { keyPair?: Record<string, unknown> };
  if (!r.keyPair || typeof r.keyPair.privateKey !== 'string' || typeof r.keyPair.publicKey !== 'string') throw new Error('no keyPair');
  const publicDer = minecraftKeyDer(r.keyPair.publicKey, 'PUBLIC');
  return {
    privateKey: createPrivateKey({ key: minecraftKeyDer(r.keyPair.privateKey, 'PRIVATE'), format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({ key: publicDer, format: 'der', type: 'spki' }),
    publicDer,
    signatureV1: base64Field(r.publicKeySignature, 'publicKeySignature'),
    signatureV2: base64Field(r.publicKeySignatureV2, 'publicKeySignatureV2'),
    expiresAt: instant(r.expiresAt, 'expiresAt'),
    refreshedAfter: instant(r.refreshedAfter, 'refreshedAfter'),
  };
}

/** ServicesKeySet from GET /publickeys: base64 X.509 DER, one line each. */
export async function fetchServicesKeys(publicKeysUrl: string): Promise<{ properties: KeyObject[]; certificates: KeyObject[] }> {
  const res = await fetch(publicKeysUrl);
  if (res.status !== 200) throw new ServicesFailure(res.status, await res.text());
  const r = (await res.json()) as Record<string, { publicKey: string }[]>;
  const parse = (list: unknown, what: string) => {
    if (!Array.isArray(list)) throw new Error(`${what}: not a list`);
    return list.map((e: { publicKey?: unknown }) => {
      if (typeof e.publicKey !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(e.publicKey)) throw new Error(`${what}: bad key`);
      return createPublicKey({ key: Buffer.from(e.publicKey, 'base64'), format: 'der', type: 'spki' });
    });
  };
  return {
    properties: parse(r.profilePropertyKeys, 'profilePropertyKeys'),
    certificates: parse(r.playerCertificateKeys, 'playerCertificateKeys'),
  };
}

/** ProfilePublicKey.Data.signedPayload(UUID) of 1.19.1+. */
export function payloadV2(profileId: string, expiresAt: Date, publicDer: Buffer): Buffer {
  const head = Buffer.alloc(24);
  Buffer.from(profileId.replaceAll('-', ''), 'hex').copy(head);
  head.writeBigInt64BE(BigInt(expiresAt.getTime()), 16);
  return Buffer.concat([head, publicDer]);
}

/** 1.19.0: the expiry's millis as text, then the key as Crypt writes it (MIME, 76 columns). */
export function payloadV1(expiresAt: Date, publicDer: Buffer): Buffer {
  const b64 = publicDer
    .toString('base64')
    .match(/.{1,76}/g)!
    .join('\n');
  return Buffer.from(`${expiresAt.getTime()}-----BEGIN RSA PUBLIC KEY-----\n${b64}\n-----END RSA PUBLIC KEY-----\n`, 'utf8');
}

/** A server's check of a player's key (ProfilePublicKey.createValidated): why it refuses, or null. */
export function refuseKey(keys: PlayerKeys, profileId: string, trusted: KeyObject[], now = Date.now()): string | null {
  if (keys.expiresAt.getTime() < now) return 'multiplayer.disconnect.expired_public_key';
  const payload = payloadV2(profileId, keys.expiresAt, keys.publicDer);
  if (!trusted.some((k) => verify('sha1', payload, k, keys.signatureV2))) return 'multiplayer.disconnect.invalid_public_key_signature';
  return null;
}
