import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Db } from '../../db/index.ts';
import { findSiteKey, storeSiteKeyUnlessStored } from './game-auth.repo.ts';

const KEY_NAME = 'yggdrasil';
/** authlib-injector's key-pair guide recommends 4096 bits; Blessing Skin refuses fewer. */
const KEY_BITS = 4096;

export interface SigningKey {
  privateKey: KeyObject;
  /** PEM "PUBLIC KEY" (SubjectPublicKeyInfo), as the metadata's signaturePublickey must be. */
  publicPem: string;
}

const generate = promisify(generateKeyPair);

/**
 * The site's texture-signing key: created once, on first use, and kept in the database so every
 * instance signs with the same key (players' games check it against the metadata they fetched
 * at start). If two instances create one at the same moment, the first insert wins and the
 * loser reads it back; the key is never replaced afterwards.
 */
export async function loadSigningKey(db: Db): Promise<SigningKey> {
  const stored = await findSiteKey(db, KEY_NAME);
  if (stored) return { privateKey: createPrivateKey(stored.private_pem), publicPem: stored.public_pem };
  const pair = await generate('rsa', {
    modulusLength: KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await storeSiteKeyUnlessStored(db, { name: KEY_NAME, private_pem: pair.privateKey, public_pem: pair.publicKey, created_at: Date.now() });
  const row = await findSiteKey(db, KEY_NAME);
  if (!row) throw new Error(`site key ${KEY_NAME} is missing right after it was stored`);
  return { privateKey: createPrivateKey(row.private_pem), publicPem: row.public_pem };
}
