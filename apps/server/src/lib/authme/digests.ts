import { createHash, createHmac } from 'node:crypto';
import type { AuthMeMethod } from './method.ts';
import { type Digest, hexDigest, javaAscii, javaUtf8, randomText, sameText } from './text.ts';

/**
 * AuthMe's algorithms built of one or a few plain digests (package
 * fr.xephi.authme.security.crypts): every digest is spelled in lower-case hex, and the stored hash
 * must equal the computed one exactly, so an upper-case hex hash matches no password.
 */

const md5 = (text: string) => hexDigest('md5', text);
const sha1 = (text: string) => hexDigest('sha1', text);
const sha256 = (text: string) => hexDigest('sha256', text);
const sha512 = (text: string) => hexDigest('sha512', text);

const HEX_LENGTH: Record<Digest, number> = { md5: 32, sha1: 40, sha256: 64, sha512: 128 };

function hexProblem(hash: string, length: number): string | null {
  if (hash === '') return 'пустой хеш';
  if (new RegExp(`^[0-9a-f]{${length}}$`).test(hash)) return null;
  if (new RegExp(`^[0-9a-fA-F]{${length}}$`).test(hash)) return 'хеш в верхнем регистре: AuthMe пишет и сравнивает строчные цифры';
  return `ожидается ${length} шестнадцатеричных цифр`;
}

/** An unsalted digest of the password (MD5, SHA1, SHA512, DOUBLEMD5, CMW, ROYALAUTH). */
function unsalted(digest: Digest, compute: (password: string) => string, weak = true): AuthMeMethod {
  return {
    salt: 'none',
    slow: false,
    weak,
    inspect: (hash) => hexProblem(hash, HEX_LENGTH[digest]),
    verify: async (password, hash) => sameText(hash, compute(password)),
    create: async (password) => ({ hash: compute(password), salt: null }),
  };
}

export const MD5 = unsalted('md5', md5);
export const SHA1 = unsalted('sha1', sha1);
export const SHA512 = unsalted('sha512', sha512);
export const DOUBLEMD5 = unsalted('md5', (password) => md5(md5(password)));
/** CmwCrypt: md5(sha1(password)). */
export const CMW = unsalted('md5', (password) => md5(sha1(password)));
/** RoyalAuth: SHA-512 applied 25 times, each time to the previous hex. */
export const ROYALAUTH = unsalted('sha512', (password) => {
  let text = password;
  for (let i = 0; i < 25; i++) text = sha512(text);
  return text;
});

/**
 * A digest of the password and a salt that AuthMe keeps in its salt column (SeparateSaltMethod):
 * a row whose salt is NULL is refused before any hashing (PasswordSecurity.methodMatches); an
 * empty salt is a salt (SALTED2MD5 writes one when doubleMD5SaltLength is 0).
 */
function separateSalt(
  digest: Digest,
  compute: (password: string, salt: string, name: string) => string,
  newSalt: (saltedMd5Length: number) => string,
  weak = false,
): AuthMeMethod {
  return {
    salt: 'column',
    slow: false,
    weak,
    inspect: (hash, salt) =>
      salt === null ? 'нет соли: у алгоритма соль в отдельном столбце, а он пуст или не настроен' : hexProblem(hash, HEX_LENGTH[digest]),
    verify: async (password, hash, salt, name) => sameText(hash, compute(password, salt ?? '', name)),
    create: async (password, name, settings) => {
      const salt = newSalt(settings.saltedMd5Length);
      return { hash: compute(password, salt, name), salt };
    },
  };
}

export const SALTEDSHA512 = separateSalt(
  'sha512',
  (p, s) => sha512(p + s),
  () => randomText(32, 16),
);
export const SALTEDSHA256 = separateSalt(
  'sha256',
  (p, s) => sha256(p + s),
  () => randomText(32, 16),
);
export const DOUBLE_SHA512 = separateSalt(
  'sha512',
  (p, s) => sha512(sha512(p) + s),
  () => randomText(32, 16),
);
/** Salted2Md5: md5(md5(password) + salt), the salt's length from doubleMD5SaltLength. */
export const SALTED2MD5 = separateSalt(
  'md5',
  (p, s) => md5(md5(p) + s),
  (length) => randomText(length, 16),
);
/** IPB3 and MyBB hash alike; IPB3's salt is 5 hex digits, MyBB's 8 letters and digits. */
export const IPB3 = separateSalt(
  'md5',
  (p, s) => md5(md5(s) + md5(p)),
  () => randomText(5, 16),
);
export const MYBB = separateSalt(
  'md5',
  (p, s) => md5(md5(s) + md5(p)),
  () => randomText(8, 62),
);
/** Wbb3: sha1(salt + sha1(salt + sha1(password))). */
export const WBB3 = separateSalt(
  'sha1',
  (p, s) => sha1(s + sha1(s + sha1(p))),
  () => randomText(40, 16),
);
/** PhpFusion: HMAC-SHA256 of the password's ASCII bytes, keyed with the hex SHA-1 of the salt. */
export const PHPFUSION = separateSalt(
  'sha256',
  (p, s) =>
    createHmac('sha256', javaUtf8(sha1(s)))
      .update(javaAscii(p))
      .digest('hex'),
  () => randomText(12, 16),
  true,
);
/**
 * Smf: sha1(lower-case name + password). AuthMe still writes a random 4-character salt to the
 * salt column and refuses a row without one, though the hash does not use it.
 */
export const SMF = separateSalt(
  'sha1',
  (p, _s, name) => sha1(name.toLowerCase() + p),
  () => randomText(4, 36),
  true,
);

/** Sha256, AuthMe's default: $SHA$salt$sha256(sha256(password) + salt), a 16-hex-digit salt. */
export const SHA256: AuthMeMethod = {
  salt: 'embedded',
  slow: false,
  weak: false,
  inspect: (hash) => {
    if (hash === '') return 'пустой хеш';
    if (/^\$SHA\$[^$]*\$[0-9a-f]{64}$/.test(hash)) return null;
    if (/^\$SHA\$[^$]*\$[0-9a-fA-F]{64}$/.test(hash)) return 'хеш в верхнем регистре: AuthMe пишет и сравнивает строчные цифры';
    return 'ожидается $SHA$соль$хеш';
  },
  verify: async (password, hash) => {
    const salt = hash.slice(5, hash.lastIndexOf('$'));
    return sameText(hash, sha256Hash(password, salt));
  },
  create: async (password) => ({ hash: sha256Hash(password, randomText(16, 16)), salt: null }),
};

export function sha256Hash(password: string, salt: string): string {
  return `$SHA$${salt}$${sha256(sha256(password) + salt)}`;
}

/** Md5vB: $MD5vb$salt$md5(md5(password) + salt). */
export const MD5VB: AuthMeMethod = {
  salt: 'embedded',
  slow: false,
  weak: false,
  inspect: (hash) => (hash === '' ? 'пустой хеш' : /^\$MD5vb\$[^$]*\$[0-9a-f]{32}$/.test(hash) ? null : 'ожидается $MD5vb$соль$хеш'),
  verify: async (password, hash) => sameText(hash, md5vbHash(password, hash.slice(7, hash.lastIndexOf('$')))),
  create: async (password) => ({ hash: md5vbHash(password, randomText(16, 16)), salt: null }),
};

export function md5vbHash(password: string, salt: string): string {
  return `$MD5vb$${salt}$${md5(md5(password) + salt)}`;
}

/** Joomla: md5(password + salt):salt with a 32-hex-digit salt. */
export const JOOMLA: AuthMeMethod = {
  salt: 'embedded',
  slow: false,
  weak: false,
  inspect: (hash) => (hash === '' ? 'пустой хеш' : /^[0-9a-f]{32}:[^:]+$/.test(hash) ? null : 'ожидается хеш:соль'),
  verify: async (password, hash) => sameText(hash, joomlaHash(password, hash.slice(33))),
  create: async (password) => ({ hash: joomlaHash(password, randomText(32, 16)), salt: null }),
};

export function joomlaHash(password: string, salt: string): string {
  return `${md5(password + salt)}:${salt}`;
}

/**
 * CrazyCrypt1: SHA-512 of a fixed text around the password and the lower-case name — but only of
 * the text's first text.length() UTF-8 bytes (MessageDigest.update(bytes, 0, text.length())): the
 * fixed parts hold non-ASCII letters, so the tail of the encoded text is never hashed.
 */
export const CRAZYCRYPT1: AuthMeMethod = {
  salt: 'username',
  slow: false,
  weak: true,
  inspect: (hash) => hexProblem(hash, 128),
  verify: async (password, hash, _salt, name) => sameText(hash, crazyCrypt1(password, name)),
  create: async (password, name) => ({ hash: crazyCrypt1(password, name), salt: null }),
};

export function crazyCrypt1(password: string, name: string): string {
  const text = `ÜÄaeut//&/=I ${password}7421€547${name}__+IÄIH§%NK ${password}`;
  return createHash('sha512').update(javaUtf8(text).subarray(0, text.length)).digest('hex');
}
