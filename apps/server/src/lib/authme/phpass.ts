import { createHash, randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { phpbbBcrypt } from './bcrypt.ts';
import { type AuthMeMethod, LIMITS } from './method.ts';
import { javaLatin1, javaUtf8, sameText } from './text.ts';

/**
 * The portable phpass hashes ($P$ and $H$: 8 salt characters, 2^n rounds of MD5 over the
 * previous digest and the password, 16 bytes in phpass's own Base64) as AuthMe's Wordpress and
 * PhpBB algorithms read them.
 */

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The rounds AuthMe writes: log2 13 ('B'), 8192 rounds, as WordPress's own phpass does. */
const WRITE_LOG2 = 13;
/** Rounds between two yields to the event loop: a few milliseconds of MD5. */
const ROUNDS_PER_TURN = 2048;

/** phpass's encode64: little-endian groups of 6 bits. */
export function phpassEncode64(bytes: Uint8Array, count: number): string {
  let output = '';
  let i = 0;
  do {
    let value = bytes[i++]!;
    output += ITOA64[value & 63];
    if (i < count) value |= bytes[i]! << 8;
    output += ITOA64[(value >> 6) & 63];
    if (i++ >= count) break;
    if (i < count) value |= bytes[i]! << 16;
    output += ITOA64[(value >> 12) & 63];
    if (i++ >= count) break;
    output += ITOA64[(value >> 18) & 63];
  } while (i < count);
  return output;
}

/**
 * Why no password can match this phpass hash, or null. The computed hash is the stored one's
 * first 12 characters and 22 of phpass's Base64 whose last holds two bits, so anything else
 * cannot be equal to it.
 */
function phpassProblem(hash: string, prefixes: readonly string[]): string | null {
  if (hash === '') return 'пустой хеш';
  if (!prefixes.includes(hash.slice(0, 3))) return `ожидается phpass: ${prefixes.join(' или ')}`;
  const log2 = ITOA64.indexOf(hash[3] ?? '');
  if (log2 < 7 || log2 > 30) return 'число раундов phpass вне 2^7–2^30';
  if (log2 > LIMITS.phpassLog2) return `число раундов phpass выше 2^${LIMITS.phpassLog2}: такой хеш сайт не проверяет`;
  if (hash.length !== 34) return 'хеш phpass длиной не 34 символа';
  const digest = hash.slice(12);
  if ([...digest].some((char) => !ITOA64.includes(char)) || ITOA64.indexOf(digest[21]!) > 3)
    return 'хеш phpass записан не своими символами';
  return null;
}

/** phpass's crypt_private with the password and salt as encode() turns them into bytes. */
async function phpassCrypt(password: string, setting: string, encode: (text: string) => Buffer): Promise<string> {
  const rounds = 2 ** ITOA64.indexOf(setting[3]!);
  const salt = setting.slice(4, 12);
  const passwordBytes = encode(password);
  let digest = createHash('md5')
    .update(encode(salt + password))
    .digest();
  for (let round = 1; round <= rounds; round++) {
    digest = createHash('md5').update(digest).update(passwordBytes).digest();
    if (round % ROUNDS_PER_TURN === 0 && round < rounds) await nextTurn();
  }
  return setting.slice(0, 12) + phpassEncode64(digest, 16);
}

/** A new $P$ hash with the given 6 salt bytes, as AuthMe's Wordpress writes it. */
export function wordpressHash(password: string, saltBytes: Uint8Array): Promise<string> {
  return phpassCrypt(password, `$P$${ITOA64[WRITE_LOG2]}${phpassEncode64(saltBytes, 6)}`, javaUtf8);
}

/** Wordpress: $P$ or $H$ phpass, the password and salt in UTF-8. */
export const WORDPRESS: AuthMeMethod = {
  salt: 'embedded',
  slow: true,
  weak: false,
  inspect: (hash) => phpassProblem(hash, ['$P$', '$H$']),
  verify: async (password, hash) => sameText(hash, await phpassCrypt(password, hash, javaUtf8)),
  create: async (password) => ({ hash: await wordpressHash(password, randomBytes(6)), salt: null }),
};

/**
 * PhpBB: a 60-character hash starting "$2" is bcrypt (phpBB 3.1+), a 34-character one is phpBB
 * 3.0's $H$ phpass over ISO-8859-1 (other characters count as '?'), anything else an unsalted
 * MD5 of the ISO-8859-1 password. AuthMe writes $2y$ bcrypt with cost 10.
 */
export const PHPBB: AuthMeMethod = {
  salt: 'embedded',
  slow: true,
  weak: false,
  inspect: (hash) => {
    if (hash.length === 60 && hash.startsWith('$2')) return phpbbBcrypt.inspect(hash);
    if (hash.length === 34) return phpassProblem(hash, ['$H$']);
    if (hash === '') return 'пустой хеш';
    return /^[0-9a-f]{32}$/.test(hash) ? null : 'ожидается bcrypt, phpass $H$ или MD5 из 32 строчных шестнадцатеричных цифр';
  },
  verify: async (password, hash) => {
    if (hash.length === 60 && hash.startsWith('$2')) return phpbbBcrypt.check(password, hash);
    if (hash.length === 34) return sameText(hash, await phpassCrypt(password, hash, javaLatin1));
    return sameText(hash, createHash('md5').update(javaLatin1(password)).digest('hex'));
  },
  create: async (password) => ({ hash: await phpbbBcrypt.create(password), salt: null }),
};

/** phpBB 3.0's $H$ hash with the given 6 salt bytes and rounds (for comparing with other phpass implementations). */
export function phpbbPhpassHash(password: string, saltBytes: Uint8Array, log2: number): Promise<string> {
  return phpassCrypt(password, `$H$${ITOA64[log2]}${phpassEncode64(saltBytes, 6)}`, javaLatin1);
}
