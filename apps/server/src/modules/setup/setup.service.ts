import { randomInt } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SetupBody } from '@kubik/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import { conflict, forbidden } from '../../lib/errors.ts';
import { hashPassword } from '../../front-door/passwords.ts';
import { makePrivate, PRIVATE_FILE_MODE } from '../../base/private-files.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { SiteSettingsDoc } from '../site/site.settings.ts';
import { createSession } from '../users/users.logins.ts';
import { firstServer } from '../users/users.ports.ts';
import { nameOrEmailTaken, profileUuidFor } from '../users/users.repo.ts';
import { sameSecret } from '../../lib/same-secret.ts';
import * as repo from './setup.repo.ts';

export const SETUP_TEXTS = {
  done: 'Сайт уже настроен: войдите как администратор',
  badCode: 'Неверный код. Он напечатан в журнале сервера и записан в файл setup-code в папке данных',
  emailTaken: 'Эта почта уже занята',
  usernameTaken: 'Это имя уже занято',
};

/** Readable and unambiguous (no 0/O, 1/I/L): 12 of 31 symbols, about 59 bits. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () => Array.from({ length: 12 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
/**
 * Tries per address, and wrong codes from everyone, in a rate-limit window. The per-address limit
 * is what guessing meets (59 bits of code at 10 tries per address per window). The shared one
 * counts wrong codes only and never refuses the right one — anyone with a few addresses could use
 * it up and lock the owner out — so it merely answers a flood of wrong codes with 429.
 */
const TRIES_PER_IP = 10;
const TRIES_ALL = 100;
/** The limiter keys of setup tries: per address (an IPv6 client by its /64) and wrong codes from everyone together. */
export const setupKeys = { address: (ip: string) => `setup:ip:${addressKey(ip)}`, all: 'setup:all' } as const;

/** Once an instance has seen an administrator, setup is over for good: it never asks the database again. */
const over = new WeakSet<AppContext>();

export const setupCodeFile = (ctx: AppContext) => path.join(ctx.config.dataDir, 'setup-code');

/** True while no administrator exists and setup has not been done; false is remembered. */
export async function setupNeeded(ctx: AppContext): Promise<boolean> {
  if (over.has(ctx)) return false;
  const done = (await repo.hasAdmin(ctx.db)) || (await repo.setupDone(ctx.db));
  if (done) over.add(ctx);
  return !done;
}

/**
 * At start, on a site without an administrator: the one-time code (made once and shared by every
 * instance through the database), printed in the log and written to DATA_DIR/setup-code (0600).
 */
export async function announceSetup(ctx: AppContext, log: FastifyBaseLogger): Promise<void> {
  if (!(await setupNeeded(ctx))) return;
  const code = await repo.setupCode(ctx.db, newCode(), Date.now());
  const file = setupCodeFile(ctx);
  try {
    writeFileSync(file, `${code}\n`, { mode: PRIVATE_FILE_MODE });
    makePrivate(file);
  } catch (err) {
    log.warn({ err }, `could not write ${file}`);
  }
  log.warn(
    { setupCode: code },
    `First-run setup: open ${ctx.config.publicUrl}/setup and enter the code ${code} (also in ${file}) to create the owner's account`,
  );
}

function sameCode(given: string, expected: string): boolean {
  return sameSecret(given.trim().toUpperCase(), expected);
}

/**
 * Creates the owner, once: the code is checked (per-address limit first, constant time) before
 * any hashing, and only a wrong code counts towards the shared limit;
 * the claim is one conditional update of the setup row, so of parallel requests exactly one
 * creates an owner and the others get 409 `setup_done`. Returns a session token for the owner.
 */
export async function completeSetup(
  ctx: AppContext,
  body: SetupBody,
  meta: { ip: string; userAgent?: string },
): Promise<{ token: string; userId: number }> {
  if (!(await setupNeeded(ctx))) throw conflict(SETUP_TEXTS.done, { code: 'setup_done' });
  await ctx.limiter.hit(setupKeys.address(meta.ip), TRIES_PER_IP);
  const state = await repo.setupState(ctx.db);
  if (!state || state.done_at !== null) throw conflict(SETUP_TEXTS.done, { code: 'setup_done' });
  if (!sameCode(body.code, state.code)) {
    // Over the shared limit a wrong code gets 429 instead of 403.
    await ctx.limiter.hit(setupKeys.all, TRIES_ALL);
    throw forbidden(SETUP_TEXTS.badCode, { code: 'bad_setup_code', field: 'code' });
  }

  const passwordHash = await hashPassword(body.password);
  const { id: userId, serverId } = await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now();
    if (!(await repo.claimSetup(trx, now))) throw conflict(SETUP_TEXTS.done, { code: 'setup_done' });
    if (await repo.hasAdmin(trx)) throw conflict(SETUP_TEXTS.done, { code: 'setup_done' });
    const taken = await nameOrEmailTaken(trx, body.username, body.email);
    if (taken === 'email') throw conflict(SETUP_TEXTS.emailTaken, { code: 'email_exists', field: 'email' });
    if (taken) throw conflict(SETUP_TEXTS.usernameTaken, { code: 'username_exists', field: 'username' });
    const id = await repo.insertOwner(trx, {
      username: body.username,
      username_lower: body.username.toLowerCase(),
      email: body.email,
      email_lower: body.email.toLowerCase(),
      password_hash: passwordHash,
      is_admin: 1,
      balance: 0,
      email_verified_at: now,
      created_at: now,
      deleted_at: null,
      uuid: await profileUuidFor(trx, body.username),
    });
    await repo.recordSetupOwner(trx, id);
    const serverId = body.server ? await firstServer.ask().create(trx, id, body.server) : null;
    await recordAudit(trx, {
      actorId: id,
      action: 'setup.done',
      entity: 'user',
      entityId: id,
      after: { username: body.username, email: body.email, is_admin: true },
    });
    return { id, serverId };
  });
  over.add(ctx);
  if (serverId !== null) firstServer.ask().checkSoon(ctx, serverId);
  rmSync(setupCodeFile(ctx), { force: true });
  await ctx.settings.set(
    SiteSettingsDoc,
    { name: body.site_name, ...(body.game_address ? { game_address: body.game_address } : {}) },
    { actorId: userId },
  );
  const token = await createSession(ctx.db, userId, ctx.config.sessionTtlMs, meta);
  return { token, userId };
}
