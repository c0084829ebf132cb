import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../base/private-files.ts';

const PREFIX = 'v1:';

/**
 * Seals secrets the owner types in the admin (payment keys) before they reach the database:
 * AES-256-GCM with a random 12-byte nonce, stored as `v1:` + base64(nonce | tag | ciphertext).
 * The key is SECRETS_KEY (any text of at least 32 characters, hashed to 256 bits) or, without
 * it, 32 random bytes in DATA_DIR/secrets.key (0600, made on first use). Every instance of one
 * site must have the same key: with several instances set SECRETS_KEY (or share the data dir).
 */
export class SecretBox {
  private key: Buffer | null = null;

  constructor(
    private readonly secretsKey: string | undefined,
    private readonly dataDir: string,
  ) {}

  private keyBytes(): Buffer {
    if (this.key) return this.key;
    if (this.secretsKey) return (this.key = createHash('sha256').update(this.secretsKey, 'utf8').digest());
    const file = path.join(this.dataDir, 'secrets.key');
    try {
      this.key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      ensurePrivateDir(this.dataDir);
      const fresh = randomBytes(32);
      try {
        // wx: of two processes starting at once, one writes and the other reads what it wrote.
        fs.writeFileSync(file, `${fresh.toString('base64')}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
        this.key = fresh;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        this.key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
      }
    }
    if (this.key.length !== 32) throw new Error(`${file}: not a 256-bit key`);
    return this.key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyBytes(), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The secret, or null when it cannot be opened (another key, damaged): the caller treats it as unset. */
  open(sealed: string): string | null {
    if (!sealed.startsWith(PREFIX)) return null;
    try {
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.keyBytes(), raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
