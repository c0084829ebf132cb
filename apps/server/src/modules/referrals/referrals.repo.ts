import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import { isPg } from '../../db/schema-helpers.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import type { ReferralRewardsTable } from './referrals.tables.ts';

export type RewardRow = Selectable<ReferralRewardsTable>;

/** How many rows of each kind of trace are read when judging whose address a payment came from. */
const TRACE_LIMIT = 500;

/** The player's referral code, if they have one yet. */
export async function codeOfUser(db: Db, userId: number): Promise<string | undefined> {
  return (await db.selectFrom('referral_codes').select('code').where('user_id', '=', userId).executeTakeFirst())?.code;
}

/** Stores a code for the player unless they have one or the code is taken (the caller reads which won). */
export async function insertCodeIfNone(db: Db, userId: number, code: string, now: number): Promise<void> {
  await db
    .insertInto('referral_codes')
    .values({ user_id: userId, code, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The inviter of a code, if their account is not deleted. */
export async function inviterOfCode(db: Db, code: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('referral_codes')
    .innerJoin('users', 'users.id', 'referral_codes.user_id')
    .select('referral_codes.user_id')
    .where('referral_codes.code', '=', code)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.user_id;
}

/** Remembers who invited the player; an invited player keeps their first inviter. */
export async function insertReferral(trx: Db, invitedId: number, inviterId: number, now: number): Promise<void> {
  await trx
    .insertInto('referrals')
    .values({ invited_id: invitedId, inviter_id: inviterId, created_at: now })
    .onConflict((oc) => oc.column('invited_id').doNothing())
    .execute();
}

export function referralOf(db: Db, invitedId: number) {
  return db.selectFrom('referrals').selectAll().where('invited_id', '=', invitedId).executeTakeFirst();
}

/** The players the inviter brought who still have an account, newest first. */
export function invitedBy(db: Db, inviterId: number, limit: number) {
  return db
    .selectFrom('referrals')
    .innerJoin('users', 'users.id', 'referrals.invited_id')
    .select(['referrals.invited_id', 'users.username', 'referrals.created_at'])
    .where('referrals.inviter_id', '=', inviterId)
    .where('users.deleted_at', 'is', null)
    .orderBy('referrals.created_at', 'desc')
    .limit(limit)
    .execute();
}

/** A settings document as stored (JSON), read through the caller's connection (a transaction's: on SQLite the only one). */
export async function storedSettings(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

/** Where a self-registered account came from; written in the registration's transaction. */
export async function recordSignup(trx: Db, userId: number, ip: string, deviceHash: string | null, now: number): Promise<void> {
  await trx
    .insertInto('referral_signups')
    .values({ user_id: userId, ip: ip.slice(0, 64), device_hash: deviceHash, created_at: now })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

/** A deleted account's registration address and browser are forgotten (users core: userErased). */
export async function forgetSignup(trx: Db, userId: number): Promise<void> {
  await trx.deleteFrom('referral_signups').where('user_id', '=', userId).execute();
}

/**
 * The account's own traces: every browser it logged in or registered from (sha256 of the device
 * cookie), and the addresses (by addressKey: an IPv6 /64 counts as one) it logged in from, used
 * a session from or registered from since `since`.
 */
export async function ownTraces(db: Db, userId: number, since: number): Promise<{ devices: Set<string>; addresses: Set<string> }> {
  const devices = new Set<string>();
  const addresses = new Set<string>();
  const add = (ip: string | null) => {
    if (ip) addresses.add(addressKey(ip));
  };
  const known = await db
    .selectFrom('known_devices')
    .select(['device_hash', 'ip', 'last_seen_at'])
    .where('user_id', '=', userId)
    .orderBy('last_seen_at', 'desc')
    .limit(TRACE_LIMIT)
    .execute();
  for (const k of known) {
    devices.add(k.device_hash);
    if (Number(k.last_seen_at) > since) add(k.ip);
  }
  const signup = await db.selectFrom('referral_signups').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (signup?.device_hash) devices.add(signup.device_hash);
  if (signup && Number(signup.created_at) > since) add(signup.ip);
  const sessions = await db
    .selectFrom('sessions')
    .leftJoin('session_activity', 'session_activity.token_hash', 'sessions.token_hash')
    .select(['sessions.ip', 'sessions.created_at', 'session_activity.ip as last_ip', 'session_activity.last_seen_at'])
    .where('sessions.user_id', '=', userId)
    .where((eb) => eb.or([eb('sessions.created_at', '>', since), eb('session_activity.last_seen_at', '>', since)]))
    .orderBy('sessions.created_at', 'desc')
    .limit(TRACE_LIMIT)
    .execute();
  for (const s of sessions) {
    if (Number(s.created_at) > since) add(s.ip);
    if (s.last_seen_at !== null && Number(s.last_seen_at) > since) add(s.last_ip);
  }
  return { devices, addresses };
}

export async function insertReward(trx: Db, row: Insertable<ReferralRewardsTable>): Promise<void> {
  await trx.insertInto('referral_rewards').values(row).execute();
}

/** Whether the invited player's bonus was decided already (paid, held, refused or canceled: it is decided once). */
export async function hasBonus(db: Db, invitedId: number): Promise<boolean> {
  const row = await db
    .selectFrom('referral_rewards')
    .select('id')
    .where('invited_id', '=', invitedId)
    .where('kind', '=', 'bonus')
    .executeTakeFirst();
  return row !== undefined;
}

export function rewardsOfPayment(db: Db, paymentId: string): Promise<RewardRow[]> {
  return db.selectFrom('referral_rewards').selectAll().where('payment_id', '=', paymentId).orderBy('id').execute();
}

/** Held rewards due at `now`, oldest first, with whether their inviter's account is gone. */
export function dueHeldRewards(db: Db, now: number, limit: number): Promise<(RewardRow & { inviter_deleted_at: number | null })[]> {
  return db
    .selectFrom('referral_rewards')
    .innerJoin('users', 'users.id', 'referral_rewards.inviter_id')
    .selectAll('referral_rewards')
    .select('users.deleted_at as inviter_deleted_at')
    .where('referral_rewards.status', '=', 'held')
    .where('referral_rewards.release_at', '<=', now)
    .orderBy('referral_rewards.release_at')
    .orderBy('referral_rewards.id')
    .limit(limit)
    .execute();
}

/** held → paid, once: false when the reward is no longer held (paid by another pass, or canceled by a refund). */
export async function markPaid(trx: Db, id: number, now: number): Promise<boolean> {
  const res = await trx
    .updateTable('referral_rewards')
    .set({ status: 'paid', paid_at: now })
    .where('id', '=', id)
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** held → canceled, once; false when it is no longer held. */
export async function cancelHeld(trx: Db, id: number, reason: string): Promise<boolean> {
  const res = await trx
    .updateTable('referral_rewards')
    .set({ status: 'canceled', reason })
    .where('id', '=', id)
    .where('status', '=', 'held')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** A paid reward's reversal grows from `before` to `after`, once: false when another refund moved it first. */
export async function moveReversed(trx: Db, id: number, before: number, after: number): Promise<boolean> {
  const res = await trx
    .updateTable('referral_rewards')
    .set({ reversed: after })
    .where('id', '=', id)
    .where('status', '=', 'paid')
    .where('reversed', '=', before)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The inviter's balance; on PostgreSQL their row stays locked until the transaction ends, so what is taken back is counted against what is there. */
export async function lockedBalance(trx: Db, userId: number): Promise<number> {
  let q = trx.selectFrom('users').select('balance').where('id', '=', userId);
  if (isPg(trx as never)) q = q.forUpdate();
  return Number((await q.executeTakeFirst())?.balance ?? 0);
}

/** What the inviter earned, per invited player: credited rewards less what refunds took back. */
export function earnedByInvited(db: Db, inviterId: number): Promise<{ invited_id: number; net: number | string | null }[]> {
  return db
    .selectFrom('referral_rewards')
    .select(['invited_id', (eb) => eb.fn.sum<number>(sql`amount - reversed`).as('net')])
    .where('inviter_id', '=', inviterId)
    .where('status', '=', 'paid')
    .groupBy('invited_id')
    .execute();
}

/** The inviter's rewards still held, soonest first. */
export function heldOf(db: Db, inviterId: number, limit: number) {
  return db
    .selectFrom('referral_rewards')
    .innerJoin('users', 'users.id', 'referral_rewards.invited_id')
    .select(['users.username', 'referral_rewards.kind', 'referral_rewards.amount', 'referral_rewards.release_at'])
    .where('referral_rewards.inviter_id', '=', inviterId)
    .where('referral_rewards.status', '=', 'held')
    .orderBy('referral_rewards.release_at')
    .orderBy('referral_rewards.id')
    .limit(limit)
    .execute();
}

/** The latest rewards of every inviter, newest first, for the owner. */
export function latestRewards(db: Db, limit: number) {
  return db
    .selectFrom('referral_rewards')
    .innerJoin('users as inviter', 'inviter.id', 'referral_rewards.inviter_id')
    .innerJoin('users as invited', 'invited.id', 'referral_rewards.invited_id')
    .selectAll('referral_rewards')
    .select(['inviter.username as inviter_name', 'invited.username as invited_name'])
    .orderBy('referral_rewards.id', 'desc')
    .limit(limit)
    .execute();
}
