import { randomBytes } from 'node:crypto';
import { hashRaw } from '@node-rs/argon2';
import { type AuthMeMethod, LIMITS } from './method.ts';
import { decodeJavaBase64, javaSplit, javaUtf8, sameBytes } from './text.ts';

/**
 * AuthMe's ARGON2: Argon2i, version 19, 64 MiB, 2 passes, 1 lane, a 16-byte salt and a 32-byte
 * hash, stored as $argon2i$v=19$m=65536,t=2,p=1$salt$hash (Base64 without padding). A check
 * accepts only argon2i with v=19, reads m, t and p in any order, and derives a hash of the stored
 * hash's length; argon2id or argon2d rows match no password. Like AuthMe, it ignores what stands
 * before the first '$'.
 */

const MEMORY_KIB = 65_536;
const PASSES = 2;
const LANES = 1;

// @node-rs/argon2's enums are const enums, which isolated modules cannot import: Argon2i is 1, version 0x13 is 1.
const ARGON2I = 1;
const V0X13 = 1;

interface Argon2Parts {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
  salt: Buffer;
  hash: Buffer;
}

/** Base64 with its padding left off, as AuthMe reads it (it pads, then decodes strictly). */
function decodeUnpadded(text: string): Buffer | null {
  const padding = text.length % 4 === 2 ? '==' : text.length % 4 === 3 ? '=' : '';
  return decodeJavaBase64(text + padding);
}

function parse(stored: string): Argon2Parts | string {
  if (stored === '') return 'пустой хеш';
  const parts = javaSplit(stored, '$');
  if (parts.length !== 6) return 'ожидается $argon2i$v=19$m=…,t=…,p=…$соль$хеш';
  if (parts[1] !== 'argon2i') return `AuthMe проверяет только argon2i, а здесь «${parts[1]!.slice(0, 12)}»`;
  if (parts[2] !== 'v=19') return 'ожидается версия v=19';
  const params = new Map<string, number>();
  for (const pair of parts[3]!.split(',')) {
    const match = /^([a-z]+)=(\d{1,10})$/.exec(pair);
    if (!match) return 'параметры не в виде m=…,t=…,p=…';
    params.set(match[1]!, Number(match[2]));
  }
  const memoryCost = params.get('m') ?? 0;
  const timeCost = params.get('t') ?? 0;
  const parallelism = params.get('p') ?? 0;
  if (timeCost < 1 || parallelism < 1 || memoryCost < 8 * parallelism) return 'параметры m, t, p не заданы или слишком малы';
  if (memoryCost > LIMITS.argon2MemoryKib || timeCost > LIMITS.argon2Passes || parallelism > LIMITS.argon2Lanes) {
    return `параметры выше m=${LIMITS.argon2MemoryKib},t=${LIMITS.argon2Passes},p=${LIMITS.argon2Lanes}: такой хеш сайт не проверяет`;
  }
  const salt = decodeUnpadded(parts[4]!);
  const hash = decodeUnpadded(parts[5]!);
  if (!salt || !hash) return 'соль или хеш не в Base64';
  if (salt.length < 8 || salt.length > 64) return `соль длиной ${salt.length} байт, ожидается 8–64`;
  if (hash.length < 16 || hash.length > 64) return `хеш длиной ${hash.length} байт, ожидается 16–64`;
  return { memoryCost, timeCost, parallelism, salt, hash };
}

export const ARGON2: AuthMeMethod = {
  salt: 'embedded',
  slow: true,
  weak: false,
  inspect: (hash) => {
    const parts = parse(hash);
    return typeof parts === 'string' ? parts : null;
  },
  verify: async (password, stored) => {
    const parts = parse(stored);
    if (typeof parts === 'string') return false;
    const { hash, ...options } = parts;
    const computed = await hashRaw(javaUtf8(password), { ...options, outputLen: hash.length, algorithm: ARGON2I, version: V0X13 });
    return sameBytes(computed, hash);
  },
  create: async (password) => ({ hash: await argon2Hash(password, randomBytes(16)), salt: null }),
};

export async function argon2Hash(password: string, salt: Buffer): Promise<string> {
  const options = { memoryCost: MEMORY_KIB, timeCost: PASSES, parallelism: LANES, outputLen: 32, salt };
  const hash = await hashRaw(javaUtf8(password), { ...options, algorithm: ARGON2I, version: V0X13 });
  const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
  return `$argon2i$v=19$m=${MEMORY_KIB},t=${PASSES},p=${LANES}$${b64(salt)}$${b64(hash)}`;
}
