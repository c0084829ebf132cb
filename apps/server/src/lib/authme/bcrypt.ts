import { randomBytes } from 'node:crypto';
import type * as BcryptModule from '@node-rs/bcrypt';
import { type AuthMeMethod, LIMITS } from './method.ts';
import { javaUtf8, sameText } from './text.ts';

/**
 * AuthMe's bcrypt family (BCryptHasher over BouncyCastle's OpenBSDBCrypt, before that over
 * at.favre's bcrypt): the password's UTF-8 bytes and a zero byte, cut at 72 bytes. A check
 * recomputes the whole 60-character string from the stored version, cost and salt and compares
 * it exactly, so $2a$, $2b$ and $2y$ hashes are all accepted by every bcrypt algorithm, and a
 * hash whose salt or digest is not in bcrypt's canonical spelling matches no password.
 */

const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SHAPE = /^\$(2[aby])\$(\d\d)\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

export type BcryptVersion = '2a' | '2b' | '2y';

interface BcryptParts {
  version: BcryptVersion;
  cost: number;
  salt: Buffer;
}

/** Reads a stored bcrypt string, or says why no password can match it. */
function parse(hash: string): BcryptParts | string {
  if (hash === '') return 'пустой хеш';
  const match = SHAPE.exec(hash);
  if (!match) return /^\$2x\$/.test(hash) ? 'bcrypt $2x$ не поддерживается' : 'ожидается bcrypt: $2a$, $2b$ или $2y$ и 60 символов';
  const [, version, costText, saltText, digestText] = match as unknown as [string, BcryptVersion, string, string, string];
  const cost = Number(costText);
  if (cost < 4 || cost > 31) return `стоимость bcrypt ${cost} вне 4–31`;
  if (cost > LIMITS.bcryptCost) return `стоимость bcrypt ${cost} выше ${LIMITS.bcryptCost}: такой хеш сайт не проверяет`;
  // 22 characters carry 132 bits for 128 of salt, 31 carry 186 for 184 of digest: the spare bits are zero.
  if (ALPHABET.indexOf(saltText[21]!) % 16 !== 0 || ALPHABET.indexOf(digestText[30]!) % 4 !== 0) {
    return 'соль или хеш bcrypt записаны не каноническими символами';
  }
  return { version, cost, salt: decodeSalt(saltText) };
}

function decodeSalt(text: string): Buffer {
  let bits = 0;
  let count = 0;
  const bytes: number[] = [];
  for (const char of text) {
    bits = (bits << 6) | ALPHABET.indexOf(char);
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes.push((bits >> count) & 0xff);
    }
  }
  return Buffer.from(bytes.slice(0, 16));
}

/**
 * The native addon, loaded at the first bcrypt hash: only sites that import AuthMe's bcrypt
 * accounts ever hash one, and every start paid for opening it.
 */
let loading: Promise<typeof BcryptModule> | undefined;

/** OpenBSDBCrypt.generate(version, password, salt, cost): one bcrypt string. */
export async function bcryptHash(password: string | Buffer, version: BcryptVersion, cost: number, salt: Uint8Array): Promise<string> {
  const { hash } = await (loading ??= import('@node-rs/bcrypt'));
  return hash(typeof password === 'string' ? javaUtf8(password) : password, { salt, cost, version });
}

async function check(password: string, hash: string): Promise<boolean> {
  const parts = parse(hash);
  if (typeof parts === 'string') return false;
  return sameText(hash, await bcryptHash(password, parts.version, parts.cost, parts.salt));
}

const inspectBcrypt = (hash: string): string | null => {
  const parts = parse(hash);
  return typeof parts === 'string' ? parts : null;
};

function bcryptMethod(version: BcryptVersion, cost: (bcryptCost: number) => number): AuthMeMethod {
  return {
    salt: 'embedded',
    slow: true,
    weak: false,
    inspect: inspectBcrypt,
    verify: (password, hash) => check(password, hash),
    create: async (password, _name, settings) => ({
      hash: await bcryptHash(password, version, cost(settings.bcryptCost), randomBytes(16)),
      salt: null,
    }),
  };
}

/** BCrypt: $2a$ with the cost set in AuthMe's config (bCryptLog2Round). */
export const BCRYPT = bcryptMethod('2a', (configured) => configured);
/** BCrypt2y: $2y$, always cost 10. */
export const BCRYPT2Y = bcryptMethod('2y', () => 10);
/** XfBCrypt (XenForo 1.2+): $2a$ with cost 10; the XenForo blob around it belongs to the database side. */
export const XFBCRYPT = bcryptMethod('2a', () => 10);

/**
 * Ipb4: $2a$ with cost 13, and the hash's 22 salt characters also written to the salt column —
 * AuthMe refuses a row whose salt column is empty, though the check reads only the hash.
 */
export const IPB4: AuthMeMethod = {
  salt: 'column',
  slow: true,
  weak: false,
  inspect: (hash, salt) => (salt === null ? 'нет соли: у IPB4 соль в отдельном столбце, а он пуст или не настроен' : inspectBcrypt(hash)),
  verify: (password, hash) => check(password, hash),
  create: async (password) => {
    const hash = await bcryptHash(password, '2a', 13, randomBytes(16));
    return { hash, salt: hash.slice(7, 29) };
  },
};

/**
 * Wbb4 (WoltLab Burning Board 4): bcrypt of the bcrypt string, both $2a$ with cost 8 and the
 * stored hash's salt. AuthMe recomputes with exactly $2a$08$, so a hash of any other version or
 * cost matches no password.
 */
export const WBB4: AuthMeMethod = {
  salt: 'embedded',
  slow: true,
  weak: false,
  inspect: (hash) => {
    const problem = inspectBcrypt(hash);
    if (problem) return problem;
    return hash.startsWith('$2a$08$') ? null : 'WBB4 проверяется только как $2a$08$';
  },
  verify: async (password, hash) => {
    const parts = parse(hash);
    return typeof parts !== 'string' && sameText(hash, await wbb4Hash(password, parts.salt));
  },
  create: async (password) => ({ hash: await wbb4Hash(password, randomBytes(16)), salt: null }),
};

export async function wbb4Hash(password: string, salt: Uint8Array): Promise<string> {
  return bcryptHash(Buffer.from(await bcryptHash(password, '2a', 8, salt), 'latin1'), '2a', 8, salt);
}

/** The bcrypt check phpBB's algorithm uses for its bcrypt rows (AuthMe's isValidBcryptHash: 60 characters from "$2"). */
export const phpbbBcrypt = { inspect: inspectBcrypt, check, create: (password: string) => bcryptHash(password, '2y', 10, randomBytes(16)) };
