import { createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { AppContext } from '../../context.ts';
import { keyPayloadV1, keyPayloadV2, minecraftPem, signSha1 } from '../../lib/yggdrasil/certificates.ts';
import type { User } from '../users/users.repo.ts';
import type { GameAuth } from './game-auth.service.ts';
import { findProfileKey, storeProfileKey, type ProfileKeyRow } from './profile-keys.repo.ts';

/** A pair is good for 48 hours and replaced after 40, as Mojang's services do (expiresAt − 8 h). */
export const PROFILE_KEY_TTL_MS = 48 * 3_600_000;
export const PROFILE_KEY_REFRESH_MS = 40 * 3_600_000;
/** The players' keys: 2048-bit RSA, as Mojang's and authlib-injector's. */
const PLAYER_KEY_BITS = 2048;

const generate = promisify(generateKeyPair);

/** Mojang's POST /player/certificates answer, field for field. */
export interface PlayerCertificate {
  keyPair: { privateKey: string; publicKey: string };
  publicKeySignature: string;
  publicKeySignatureV2: string;
  expiresAt: string;
  refreshedAfter: string;
}

export interface ServicesPublicKeys {
  profilePropertyKeys: { publicKey: string }[];
  playerCertificateKeys: { publicKey: string }[];
}

function certificate(row: ProfileKeyRow): PlayerCertificate {
  return {
    keyPair: {
      privateKey: minecraftPem('PRIVATE', Buffer.from(row.private_key, 'base64')),
      publicKey: minecraftPem('PUBLIC', Buffer.from(row.public_key, 'base64')),
    },
    publicKeySignature: row.signature_v1,
    publicKeySignatureV2: row.signature_v2,
    expiresAt: new Date(row.expires_at).toISOString(),
    refreshedAfter: new Date(row.refreshed_after).toISOString(),
  };
}

/**
 * Profile keys for secure chat (Minecraft 1.19+). The game asks for a pair with its access token,
 * signs its chat with the private half and shows servers the public half with the site's
 * signatures; a server with `enforce-secure-profile=true` refuses players without one.
 *
 * The pair is stored per player and handed back unchanged until refreshedAfter, as Mojang's
 * services do; then a new one replaces it. It is revoked (deleted) with the player's game logins
 * (revokeGameTokens, signout): a signature cannot be recalled and stays valid to its expiry, but
 * joining a server needs a live token anyway, and the old private key can no longer be fetched.
 *
 * The private key is stored as it is, not sealed: the site's own signing key, which can sign a
 * key pair for anyone, sits unsealed in the same database (site_keys), so sealing these under a
 * key kept beside them would protect nothing, and one kept elsewhere would leave the bigger secret
 * open. A player's key signs only that player's chat, on a server the holder has joined as that
 * player (which needs a live token, stored only as a hash); it lives at most 48 hours and is swept
 * after. Answers carry `cache-control: no-store` and the key is never logged.
 */
export function createProfileKeys(ctx: AppContext, game: GameAuth) {
  let servicesKeys: Promise<ServicesPublicKeys> | null = null;

  async function newPair(user: User, now: number): Promise<ProfileKeyRow> {
    const pair = await generate('rsa', {
      modulusLength: PLAYER_KEY_BITS,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'der' },
    });
    // Signed as whole milliseconds, so expiresAt is written with exactly that precision.
    const expiresAt = now + PROFILE_KEY_TTL_MS;
    const { privateKey: siteKey } = await game.signingKey();
    return {
      user_id: user.id,
      private_key: pair.privateKey.toString('base64'),
      public_key: pair.publicKey.toString('base64'),
      signature_v1: signSha1(keyPayloadV1(expiresAt, pair.publicKey), siteKey),
      signature_v2: signSha1(keyPayloadV2(game.profileId(user), expiresAt, pair.publicKey), siteKey),
      issued_at: now,
      refreshed_after: now + PROFILE_KEY_REFRESH_MS,
      expires_at: expiresAt,
    };
  }

  return {
    /** The player's current pair, or a new one when there is none or it is due for refresh. */
    async certificate(user: User, now = Date.now()): Promise<PlayerCertificate> {
      const current = await findProfileKey(ctx.db, user.id);
      if (current && now < current.refreshed_after) return certificate(current);
      const fresh = await newPair(user, now);
      await storeProfileKey(ctx.db, fresh, now);
      return certificate((await findProfileKey(ctx.db, user.id)) ?? fresh);
    },

    /**
     * What game servers verify with (Mojang's GET /publickeys, base64 DER): the site's Yggdrasil
     * key, for texture signatures and for the profile keys it signs. Only the site's: a server
     * pointed at the site accepts the site's players.
     */
    publicKeys(): Promise<ServicesPublicKeys> {
      servicesKeys ??= game
        .signingKey()
        .then(({ publicPem }) => {
          const entry = { publicKey: createPublicKey(publicPem).export({ type: 'spki', format: 'der' }).toString('base64') };
          return { profilePropertyKeys: [entry], playerCertificateKeys: [entry] };
        })
        .catch((err: unknown) => {
          servicesKeys = null;
          throw err;
        });
      return servicesKeys;
    },
  };
}

export type ProfileKeys = ReturnType<typeof createProfileKeys>;
