import { randomBytes } from 'node:crypto';
import type { ReferralResponse } from '@kubik/contract';
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { formatRoubles } from './referrals.text.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { notify } from '../notices/notices.service.ts';
import { isKnownDevice } from '../users/login-throttle.ts';
import { ReferralSettings, referralRulesIn } from './referrals.settings.ts';

/** The cookie /r/{code} sets for the registration that follows. */
export const REFERRAL_COOKIE = 'kubik_ref';
export const REFERRAL_COOKIE_MAX_AGE_SEC = 30 * 86_400;
export const CODE_SHAPE = /^[a-z0-9]{6,32}$/;
/** An address the inviter logged in from this recently counts as the inviter's own device. */
export const OWN_IP_WINDOW_MS = 30 * 86_400_000;

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

function newCode(): string {
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

/** The player's code, made on first ask (a lost race reads the winner's). */
export async function codeOf(db: Db, userId: number): Promise<string> {
  const found = await db.selectFrom('referral_codes').select('code').where('user_id', '=', userId).executeTakeFirst();
  if (found) return found.code;
  for (let i = 0; i < 5; i++) {
    await db
      .insertInto('referral_codes')
      .values({ user_id: userId, code: newCode(), created_at: Date.now() })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const row = await db.selectFrom('referral_codes').select('code').where('user_id', '=', userId).executeTakeFirst();
    if (row) return row.code;
  }
  throw new Error('could not make a referral code');
}

export async function myReferrals(ctx: AppContext, userId: number): Promise<ReferralResponse> {
  const code = await codeOf(ctx.db, userId);
  const invited = await ctx.db
    .selectFrom('referrals')
    .innerJoin('users', 'users.id', 'referrals.invited_id')
    .select(['referrals.invited_id', 'users.username', 'referrals.created_at'])
    .where('referrals.inviter_id', '=', userId)
    .where('users.deleted_at', 'is', null)
    .orderBy('referrals.created_at', 'desc')
    .limit(200)
    .execute();
  const sums = await ctx.db
    .selectFrom('referral_rewards')
    .select(['invited_id', (eb) => eb.fn.sum<number>(sql`amount - reversed`).as('net')])
    .where('inviter_id', '=', userId)
    .groupBy('invited_id')
    .execute();
  const net = new Map(sums.map((s) => [s.invited_id, Number(s.net ?? 0)]));
  return {
    code,
    link: `${ctx.config.publicUrl}/r/${code}`,
    invited: invited.map((i) => ({
      username: i.username,
      joined_at: new Date(Number(i.created_at)).toISOString(),
      earned: toRoubles(net.get(i.invited_id) ?? 0),
    })),
    earned: toRoubles([...net.values()].reduce((a, b) => a + b, 0)),
    rules: await ctx.settings.get(ReferralSettings),
  };
}

/**
 * A player registered with an inviter's cookie: remembered, unless the code is unknown, is their
 * own, or the browser or address is the inviter's own (a device the inviter logged in from, or an
 * address the inviter used in the last 30 days). Runs in the registration's transaction.
 */
export async function rememberInviter(
  trx: Db,
  userId: number,
  meta: { ip: string; cookies: Record<string, string | undefined> },
): Promise<void> {
  const code = meta.cookies[REFERRAL_COOKIE];
  if (!code || !CODE_SHAPE.test(code)) return;
  const inviter = await trx
    .selectFrom('referral_codes')
    .innerJoin('users', 'users.id', 'referral_codes.user_id')
    .select('referral_codes.user_id')
    .where('referral_codes.code', '=', code)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!inviter || inviter.user_id === userId) return;
  if (await isKnownDevice(trx, inviter.user_id, meta.cookies.kubik_device)) return;
  const sameIp = await trx
    .selectFrom('known_devices')
    .select('user_id')
    .where('user_id', '=', inviter.user_id)
    .where('ip', '=', meta.ip)
    .where('last_seen_at', '>', Date.now() - OWN_IP_WINDOW_MS)
    .executeTakeFirst();
  if (sameIp) return;
  await trx
    .insertInto('referrals')
    .values({ invited_id: userId, inviter_id: inviter.user_id, created_at: Date.now() })
    .onConflict((oc) => oc.column('invited_id').doNothing())
    .execute();
}

/**
 * An invited player's top-up was credited (in its transaction): the inviter gets the share
 * (within the owner's days after registration) and, once, the bonus for the first top-up of at
 * least the owner's minimum. Each is a referral_rewards row (unique per payment and kind) and a
 * ledger row `referral:<payment>:<kind>`.
 */
export async function payForTopup(trx: Db, topup: { paymentId: string; userId: number; amount: number; paidAt: number }): Promise<void> {
  const ref = await trx.selectFrom('referrals').selectAll().where('invited_id', '=', topup.userId).executeTakeFirst();
  if (!ref) return;
  const rules = await referralRulesIn(trx);
  const rewards: { kind: 'share' | 'bonus'; amount: number; note: string }[] = [];
  if (rules.share_percent > 0 && topup.paidAt <= Number(ref.created_at) + rules.share_days * 86_400_000) {
    const share = Math.floor((topup.amount * rules.share_percent) / 100);
    if (share > 0) rewards.push({ kind: 'share', amount: share, note: `Доля ${rules.share_percent} % от пополнения приглашённого игрока` });
  }
  const bonus = toKopecks(rules.bonus_amount);
  if (bonus > 0 && topup.amount >= toKopecks(rules.bonus_min_topup)) {
    const had = await trx
      .selectFrom('referral_rewards')
      .select('id')
      .where('invited_id', '=', topup.userId)
      .where('kind', '=', 'bonus')
      .executeTakeFirst();
    if (!had)
      rewards.push({
        kind: 'bonus',
        amount: bonus,
        note: `Бонус за первое пополнение приглашённого игрока от ${formatRoubles(toKopecks(rules.bonus_min_topup))}`,
      });
  }
  for (const r of rewards) {
    await trx
      .insertInto('referral_rewards')
      .values({
        inviter_id: ref.inviter_id,
        invited_id: topup.userId,
        payment_id: topup.paymentId,
        kind: r.kind,
        payment_amount: topup.amount,
        amount: r.amount,
        reversed: 0,
        created_at: Date.now(),
      })
      .execute();
    await postLedger(trx, {
      userId: ref.inviter_id,
      amount: r.amount,
      reason: 'referral_reward',
      authorId: null,
      ref: `referral:${topup.paymentId}:${r.kind}`,
      note: r.note,
    });
    await notify(trx, ref.inviter_id, {
      kind: 'referral_reward',
      title: `Реферальная награда: +${formatRoubles(r.amount)}`,
      body: r.note,
      link: '/profile',
    });
  }
}

/**
 * A rewarded top-up went back to the payer's card, wholly or in part (payments' hook, once per
 * confirmed refund, in its transaction): each reward of that payment is taken back in the share
 * of the payment refunded (`round(reward × refunded / payment)`), never more than is left, and
 * never taking the inviter's balance below zero (what they already spent stays spent). The update
 * is conditional on what was reversed before, and the ledger ref names that, so it moves once.
 */
export async function reverseForRefund(
  trx: Db,
  refund: { userId: number; paymentId: string; amount: number; bonus: number },
): Promise<void> {
  if (refund.amount <= 0) return;
  const rows = await trx.selectFrom('referral_rewards').selectAll().where('payment_id', '=', refund.paymentId).orderBy('id').execute();
  for (const row of rows) {
    const amount = Number(row.amount);
    const reversed = Number(row.reversed);
    const paymentAmount = Number(row.payment_amount);
    if (paymentAmount <= 0 || reversed >= amount) continue;
    const share = Math.round((amount * refund.amount) / paymentAmount);
    const balance = await trx.selectFrom('users').select('balance').where('id', '=', row.inviter_id).executeTakeFirst();
    const take = Math.min(share, amount - reversed, Math.max(0, Number(balance?.balance ?? 0)));
    if (take <= 0) continue;
    const moved = await trx
      .updateTable('referral_rewards')
      .set({ reversed: reversed + take })
      .where('id', '=', row.id)
      .where('reversed', '=', reversed)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) continue;
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
