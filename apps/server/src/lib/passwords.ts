import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';

// algorithm 2 is Argon2id (the package's enum is a const enum, which isolated modules cannot import).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/**
 * Each hash holds 19 MiB while it runs, on one of libuv's four threads. Hashes wait their turn
 * here, first come first, at most one per two cores: a burst of logins (or an attacker's flood)
 * then keeps the other cores for serving pages, and memory does not balloon — four at once took
 * the site from 130 to 190 MB resident, which the allocator then keeps (issue 17's 150 MB goal).
 */
const MAX_AT_ONCE = Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2)));
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return inTurn(() => hash(password, OPTIONS));
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await inTurn(() => verify(passwordHash, password));
  } catch {
    return false;
  }
}

// Verifying against this when the user does not exist keeps the timing of a wrong name and a
// wrong password alike.
let dummy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword('not-a-real-password-0');
  await verifyPassword(await dummy, password);
}
