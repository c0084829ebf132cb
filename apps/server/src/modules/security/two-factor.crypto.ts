import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Authenticator secrets at rest. With TWO_FACTOR_KEY set they are sealed with AES-256-GCM under
 * sha256(key), bound to the user id (a sealed secret copied to another row does not open), and a
 * leaked database or backup holds no usable secret. Without a key they are stored as they are —
 * still never shown again once two-factor login is on. A key set later applies to secrets saved
 * from then on; the old ones keep working.
 */
const SEALED = 'v1:';
const PLAIN = 'p:';

export class SecretKeyMissing extends Error {
  constructor() {
    super('an authenticator secret is sealed but TWO_FACTOR_KEY is not set');
  }
}

function keyOf(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

export function sealSecret(secret: string, userId: number, key: string | undefined): string {
  if (!key) return PLAIN + secret;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(key), iv);
  cipher.setAAD(Buffer.from(`kubik-2fa:${userId}`));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return SEALED + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

export function openSecret(stored: string, userId: number, key: string | undefined): string {
  if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
  if (!stored.startsWith(SEALED)) throw new Error('unknown authenticator secret format');
  if (!key) throw new SecretKeyMissing();
  const [iv, tag, body] = stored
    .slice(SEALED.length)
    .split('.')
    .map((p) => Buffer.from(p, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', keyOf(key), iv!);
  decipher.setAAD(Buffer.from(`kubik-2fa:${userId}`));
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
}
