import { pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { type AuthMeMethod, LIMITS } from './method.ts';
import { decodeJavaBase64, javaAscii, javaSplit, javaUtf8, parseCount, randomText, sameBytes } from './text.ts';

/**
 * AuthMe's PBKDF2-HMAC-SHA256 algorithms (AbstractPbkdf2, Pbkdf2Django). Each stored hash is
 * four '$'-separated parts: a label AuthMe never reads, the iterations, the salt and the key. A
 * check derives a key of the stored key's length (PBKDF2DJANGO: always 32 bytes) and compares bytes.
 */

const derive = promisify(pbkdf2);

interface Pbkdf2Parts {
  iterations: number;
  salt: Buffer;
  key: Buffer;
}

const MIN_KEY = 16;
const MAX_KEY = 128;

/** Splits a stored hash into its parts, or says why no password can match it. */
function parse(hash: string, readSalt: (text: string) => Buffer | null, readKey: (text: string) => Buffer | null): Pbkdf2Parts | string {
  if (hash === '') return 'пустой хеш';
  const parts = javaSplit(hash, '$');
  if (parts.length !== 4) return 'ожидается метка$итерации$соль$ключ';
  const iterations = parseCount(parts[1]!, 1, LIMITS.pbkdf2Iterations);
  if (iterations === null) return `число итераций «${parts[1]!.slice(0, 12)}» не от 1 до ${LIMITS.pbkdf2Iterations}`;
  const salt = readSalt(parts[2]!);
  if (salt === null) return 'соль не в Base64';
  const key = readKey(parts[3]!);
  if (key === null) return 'ключ записан не в своём формате';
  if (key.length < MIN_KEY || key.length > MAX_KEY) return `ключ длиной ${key.length} байт, ожидается ${MIN_KEY}–${MAX_KEY}`;
  return { iterations, salt, key };
}

const readHex = (text: string): Buffer | null => (/^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : null);

function method(
  parseHash: (hash: string) => Pbkdf2Parts | string,
  encodePassword: (password: string) => Buffer,
  create: AuthMeMethod['create'],
): AuthMeMethod {
  return {
    salt: 'embedded',
    slow: true,
    weak: false,
    inspect: (hash) => {
      const parts = parseHash(hash);
      return typeof parts === 'string' ? parts : null;
    },
    verify: async (password, hash) => {
      const parts = parseHash(hash);
      if (typeof parts === 'string') return false;
      const key = await derive(encodePassword(password), parts.salt, parts.iterations, parts.key.length, 'sha256');
      return sameBytes(key, parts.key);
    },
    create,
  };
}

/**
 * Pbkdf2: pbkdf2_sha256$iterations$salt$KEY — a 16-hex-digit salt hashed as text, a 64-byte key
 * in upper-case hex (read in either case), iterations from pbkdf2Rounds (10000 when it is 0 or less).
 */
export const PBKDF2 = method(
  (hash) => parse(hash, (salt) => javaUtf8(salt), readHex),
  javaUtf8,
  async (password, _name, settings) => ({
    hash: await pbkdf2Hash(password, randomText(16, 16), settings.pbkdf2Rounds > 0 ? settings.pbkdf2Rounds : 10_000),
    salt: null,
  }),
);

export async function pbkdf2Hash(password: string, salt: string, iterations: number): Promise<string> {
  const key = await derive(javaUtf8(password), javaUtf8(salt), iterations, 64, 'sha256');
  return `pbkdf2_sha256$${iterations}$${salt}$${key.toString('hex').toUpperCase()}`;
}

/**
 * Pbkdf2Base64 (AuthMe 6): pbkdf2$iterations$salt$key with a 16-byte salt and a 32-byte key in
 * Base64, iterations from pbkdf2Rounds — so 10000 with AuthMe's default config, 120000 only when
 * pbkdf2Rounds is 0 or less.
 */
export const PBKDF2BASE64 = method(
  (hash) => parse(hash, decodeJavaBase64, decodeJavaBase64),
  javaUtf8,
  async (password, _name, settings) => ({
    hash: await pbkdf2Base64Hash(password, randomBytes(16), settings.pbkdf2Rounds > 0 ? settings.pbkdf2Rounds : 120_000),
    salt: null,
  }),
);

export async function pbkdf2Base64Hash(password: string, salt: Buffer, iterations: number): Promise<string> {
  const key = await derive(javaUtf8(password), salt, iterations, 32, 'sha256');
  return `pbkdf2$${iterations}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Pbkdf2Django: Django's pbkdf2_sha256$iterations$salt$key, a 12-hex-digit salt, always 24000
 * iterations when AuthMe writes, a 32-byte key in Base64. Password and salt are hashed as ASCII:
 * every other character counts as '?' (AuthMe marks the algorithm ASCII-restricted).
 */
export const PBKDF2DJANGO = method(
  (hash) => {
    const parts = parse(hash, javaAscii, decodeJavaBase64);
    return typeof parts !== 'string' && parts.key.length !== 32 ? `ключ длиной ${parts.key.length} байт, ожидается 32` : parts;
  },
  javaAscii,
  async (password) => ({ hash: await pbkdf2DjangoHash(password, randomText(12, 16), 24_000), salt: null }),
);

export async function pbkdf2DjangoHash(password: string, salt: string, iterations: number): Promise<string> {
  const key = await derive(javaAscii(password), javaAscii(salt), iterations, 32, 'sha256');
  return `pbkdf2_sha256$${iterations}$${salt}$${key.toString('base64')}`;
}
