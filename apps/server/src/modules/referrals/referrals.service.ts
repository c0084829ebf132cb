import { randomBytes } from 'node:crypto';
import type { AdminReferralRewards, ReferralResponse, ReferralRewardReason, ReferralRewardStatus } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { hashToken } from '../../lib/tokens.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { notify } from '../notices/notices.service.ts';
import type { TopupPayer } from '../users/users.ports.ts';
import * as repo from './referrals.repo.ts';
import { ReferralSettings, referralRulesIn } from './referrals.settings.ts';
import { formatDay, formatRoubles } from './referrals.text.ts';

/** The cookie /r/{code} sets for the registration that follows. */
export const REFERRAL_COOKIE = 'kubik_ref';
export const REFERRAL_COOKIE_MAX_AGE_SEC = 30 * 86_400;
export const CODE_SHAPE = /^[a-z0-9]{6,32}$/;
/** An address the inviter logged in, used a session or registered from this recently counts as the inviter's own. */
export const OWN_IP_WINDOW_MS = 30 * 86_400_000;
/** How many held rewards one pass of the release job credits at most (the next pass takes the rest). */
const RELEASE_BATCH = 200;
export const RELEASE_JOB = 'referrals.release';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

function newCode(): string {
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

/** The player's code, made on first ask (a lost race reads the winner's). */
export async function codeOf(db: Db, userId: number): Promise<string> {
  const found = await repo.codeOfUser(db, userId);
  if (found !== undefined) return found;
  for (let i = 0; i < 5; i++) {
    await repo.insertCodeIfNone(db, userId, newCode(), Date.now());
    const code = await repo.codeOfUser(db, userId);
    if (code !== undefined) return code;
  }
  throw new Error('could not make a referral code');
}

export async function myReferrals(ctx: AppContext, userId: number): Promise<ReferralResponse> {
  const code = await codeOf(ctx.db, userId);
  const invited = await repo.invitedBy(ctx.db, userId, 200);
  const sums = await repo.earnedByInvited(ctx.db, userId);
  const net = new Map(sums.map((s) => [s.invited_id, Number(s.net ?? 0)]));
  const held = await repo.heldOf(ctx.db, userId, 200);
  return {
    code,
    link: `${ctx.config.publicUrl}/r/${code}`,
    invited: invited.map((i) => ({
      username: i.username,
      joined_at: new Date(Number(i.created_at)).toISOString(),
      earned: toRoubles(net.get(i.invited_id) ?? 0),
    })),
    earned: toRoubles([...net.values()].reduce((a, b) => a + b, 0)),
    held: held.map((h) => ({
      username: h.username,
      kind: h.kind === 'bonus' ? 'bonus' : 'share',
      amount: toRoubles(Number(h.amount)),
      release_at: new Date(Number(h.release_at)).toISOString(),
    })),
    rules: await ctx.settings.get(ReferralSettings),
  };
}

/**
 * Whether a browser (sha256 of its device cookie) or an address is the inviter's own: a browser
 * the inviter logged in or registered from, or an address (an IPv6 /64 as one) they logged in,
 * used a session or registered from in the last 30 days. Null when neither is.
 */
export async function ownTraceOf(
  db: Db,
  inviterId: number,
  seen: { ip: string | null; deviceHash: string | null },
  now: number,
): Promise<'own_device' | 'own_address' | null> {
  if (!seen.ip && !seen.deviceHash) return null;
  const own = await repo.ownTraces(db, inviterId, now - OWN_IP_WINDOW_MS);
  if (seen.deviceHash && own.devices.has(seen.deviceHash)) return 'own_device';
  if (seen.ip && own.addresses.has(addressKey(seen.ip))) return 'own_address';
  return null;
}

function deviceHashOf(token: string | undefined): string | null {
  return token && token.length <= 200 ? hashToken(token) : null;
}

/**
 * A player registered (in the registration's transaction): where they registered from is kept
 * (their own address and browser when they invite someone later), and the inviter of the cookie
 * is remembered, unless the code is unknown, is their own, or the browser or address is the
 * inviter's own.
 */
export async function rememberInviter(
  trx: Db,
  userId: number,
  meta: { ip: string; cookies: Record<string, string | undefined> },
): Promise<void> {
  const now = Date.now();
  const deviceHash = deviceHashOf(meta.cookies.kubik_device);
  await repo.recordSignup(trx, userId, meta.ip, deviceHash, now);
  const code = meta.cookies[REFERRAL_COOKIE];
  if (!code || !CODE_SHAPE.test(code)) return;
  const inviter = await repo.inviterOfCode(trx, code);
  if (inviter === undefined || inviter === userId) return;
  if (await ownTraceOf(trx, inviter, { ip: meta.ip, deviceHash }, now)) return;
  await repo.insertReferral(trx, userId, inviter, now);
}

/** A deleted account's registration address and browser are personal data too (users core: userErased). */
export const forgetSignup = repo.forgetSignup;

/**
 * An invited player's top-up was credited (in its transaction): the inviter earns the share
 * (within the owner's days after registration) and, once, the bonus for the first top-up of at
 * least the owner's minimum. Each is a referral_rewards row, unique per payment and kind:
 * - refused (no money) when the top-up was asked for from the inviter's own browser or address;
 * - else held until the owner's hold has passed (releaseHeldRewards credits it then);
 * - or, with no hold, credited now: a ledger row `referral:<payment>:<kind>`.
 */
export async function payForTopup(
  trx: Db,
  topup: { paymentId: string; userId: number; amount: number; paidAt: number; payer: TopupPayer },
): Promise<void> {
  const ref = await repo.referralOf(trx, topup.userId);
  if (!ref) return;
  const rules = await referralRulesIn(trx);
  const rewards: { kind: 'share' | 'bonus'; amount: number; note: string }[] = [];
  if (rules.share_percent > 0 && topup.paidAt <= Number(ref.created_at) + rules.share_days * 86_400_000) {
    const share = Math.floor((topup.amount * rules.share_percent) / 100);
    if (share > 0) rewards.push({ kind: 'share', amount: share, note: `Доля ${rules.share_percent} % от пополнения приглашённого игрока` });
  }
  const bonus = toKopecks(rules.bonus_amount);
  if (bonus > 0 && topup.amount >= toKopecks(rules.bonus_min_topup) && !(await repo.hasBonus(trx, topup.userId)))
    rewards.push({
      kind: 'bonus',
      amount: bonus,
      note: `Бонус за первое пополнение приглашённого игрока от ${formatRoubles(toKopecks(rules.bonus_min_topup))}`,
    });
  if (rewards.length === 0) return;
  const now = Date.now();
  const refused = await ownTraceOf(trx, ref.inviter_id, topup.payer, now);
  const releaseAt = rules.hold_days > 0 ? topup.paidAt + rules.hold_days * 86_400_000 : null;
  const status: ReferralRewardStatus = refused ? 'refused' : releaseAt !== null ? 'held' : 'paid';
  for (const r of rewards) {
    await repo.insertReward(trx, {
      inviter_id: ref.inviter_id,
      invited_id: topup.userId,
      payment_id: topup.paymentId,
      kind: r.kind,
      payment_amount: topup.amount,
      amount: r.amount,
      reversed: 0,
      created_at: now,
      status,
      reason: refused,
      release_at: status === 'held' ? releaseAt : null,
      paid_at: status === 'paid' ? now : null,
    });
    if (status === 'paid') await credit(trx, ref.inviter_id, topup.paymentId, r.kind, r.amount, r.note, now);
    else if (status === 'held')
      await notify(
        trx,
        ref.inviter_id,
        {
          kind: 'referral_reward',
          title: `Реферальная награда ${formatRoubles(r.amount)} ждёт зачисления`,
          body: `${r.note}. Поступит на баланс ${formatDay(releaseAt!)}, если платёж не вернут.`,
          link: '/profile',
        },
        now,
      );
  }
}

const NOTE: Record<'share' | 'bonus', string> = {
  share: 'Доля от пополнения приглашённого игрока',
  bonus: 'Бонус за первое пополнение приглашённого игрока',
};

/** The reward reaches the inviter's balance: the ledger row (unique by its ref, so it is written once) and a notice. */
async function credit(trx: Db, inviterId: number, paymentId: string, kind: string, amount: number, note: string, now: number) {
  await postLedger(trx, {
    userId: inviterId,
    amount,
    reason: 'referral_reward',
    authorId: null,
    ref: `referral:${paymentId}:${kind}`,
    note,
  });
  await notify(
    trx,
    inviterId,
    { kind: 'referral_reward', title: `Реферальная награда: +${formatRoubles(amount)}`, body: note, link: '/profile' },
    now,
  );
}

/**
 * Credits the held rewards whose hold has passed by `now` (the release job; tests pass `now`).
 * Each in its own transaction: held → paid (a conditional update, so a refund cancelling it at
 * the same moment, or another pass, wins or loses whole) with its ledger row. A reward of a
 * deleted inviter is canceled instead. Returns how many were credited.
 */
export async function releaseHeldRewards(db: Db, now = Date.now(), signal?: AbortSignal): Promise<number> {
  let credited = 0;
  for (;;) {
    const due = await repo.dueHeldRewards(db, now, RELEASE_BATCH);
    for (const row of due) {
      if (signal?.aborted) return credited;
      const paid = await db.transaction().execute(async (trx) => {
        if (row.inviter_deleted_at !== null) {
          await repo.cancelHeld(trx, row.id, 'inviter_deleted' satisfies ReferralRewardReason);
          return false;
        }
        if (!(await repo.markPaid(trx, row.id, now))) return false;
        await credit(
          trx,
          row.inviter_id,
          row.payment_id,
          row.kind,
          Number(row.amount),
          NOTE[row.kind === 'bonus' ? 'bonus' : 'share'],
          now,
        );
        return true;
      });
      if (paid) credited += 1;
    }
    if (due.length < RELEASE_BATCH) return credited;
  }
}

/** Every few minutes on one instance: a reward is credited within minutes of its hold ending, and a restart loses none (they wait in the table). */
export function releaseJob(db: Db): ScheduledJobSpec {
  return { name: RELEASE_JOB, everyMs: 5 * 60_000, run: (signal) => releaseHeldRewards(db, Date.now(), signal) };
}

/**
 * A rewarded top-up went back to the payer's card, wholly or in part (payments' hook, once per
 * confirmed refund, in its transaction). A reward still held is canceled whole: nothing reached
 * the balance, and a top-up refunded before the hold ends earns nothing. A credited reward is
 * taken back in the share of the payment refunded (`round(reward × refunded / payment)`), never
 * more than is left, and never taking the inviter's balance below zero (what they already spent
 * stays spent). Each change is conditional on what was there before, and the ledger ref names
 * that, so it moves once.
 */
export async function reverseForRefund(
  trx: Db,
  refund: { userId: number; paymentId: string; amount: number; bonus: number },
): Promise<void> {
  if (refund.amount <= 0) return;
  for (const row of await repo.rewardsOfPayment(trx, refund.paymentId)) {
    if (row.status === 'held') {
      await repo.cancelHeld(trx, row.id, 'refunded' satisfies ReferralRewardReason);
      continue;
    }
    if (row.status !== 'paid') continue;
    const amount = Number(row.amount);
    const reversed = Number(row.reversed);
    const paymentAmount = Number(row.payment_amount);
    if (paymentAmount <= 0 || reversed >= amount) continue;
    const share = Math.round((amount * refund.amount) / paymentAmount);
    const take = Math.min(share, amount - reversed, Math.max(0, await repo.lockedBalance(trx, row.inviter_id)));
    if (take <= 0) continue;
    if (!(await repo.moveReversed(trx, row.id, reversed, reversed + take))) continue;
    await postLedger(trx, {
      userId: row.inviter_id,
      amount: -take,
      reason: 'referral_reward',
      authorId: null,
      ref: `referral:${refund.paymentId}:${row.kind}:back:${reversed}`,
      note: 'Пополнение приглашённого игрока возвращено: награда списана',
    });
  }
}

/** The latest rewards of every inviter with what became of them, for the owner. */
export async function latestRewards(db: Db): Promise<AdminReferralRewards> {
  const rows = await repo.latestRewards(db, 100);
  return {
    rewards: rows.map((r) => ({
      id: r.id,
      inviter: r.inviter_name,
      invited: r.invited_name,
      kind: r.kind === 'bonus' ? 'bonus' : 'share',
      amount: toRoubles(Number(r.amount)),
      reversed: toRoubles(Number(r.reversed)),
      status: r.status as ReferralRewardStatus,
      reason: (r.reason as ReferralRewardReason | null) ?? null,
      created_at: Number(r.created_at),
      release_at: r.release_at === null ? null : Number(r.release_at),
      paid_at: r.paid_at === null ? null : Number(r.paid_at),
    })),
  };
}
