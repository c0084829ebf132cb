import type { AppContext } from '../../context.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { isUniqueViolation } from '../../lib/errors.ts';
import { toKopecks } from '../../lib/money.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { notify } from '../notices/notices.service.ts';
import { prizesPaid, recordPrizeWinners, startPrizePayout, topVoters } from './votes.repo.ts';
import { formatRoubles, monthOf, monthRange, previousMonth } from './votes.service.ts';
import { VotePrizeSettings } from './votes.settings.ts';

/** The scheduled job's name (job_schedule). */
export const VOTE_PRIZES_JOB = 'vote-prizes';

/**
 * Pays the prizes of the month that ended last (in TIME_ZONE), once: the month's row in
 * vote_prize_payouts is written first in the same transaction as the payments, so a second pass,
 * instance or retry finds it and pays nothing. A month without prizes set is closed with none.
 * Returns what was paid, or null when the month was paid before.
 */
export async function payMonthPrizes(
  ctx: AppContext,
  now = Date.now(),
): Promise<{ month: string; winners: { place: number; userId: number; amount: number }[] } | null> {
  const month = previousMonth(monthOf(now, ctx.config.timeZone));
  if (await prizesPaid(ctx.db, month)) return null;
  const { prizes } = await ctx.settings.get(VotePrizeSettings);
  const { start, end } = monthRange(month, ctx.config.timeZone);
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await startPrizePayout(trx, month, now);
      const top = prizes.length > 0 ? await topVoters(trx, start, end, prizes.length) : [];
      const winners = top
        .map((t, i) => ({ place: i + 1, userId: t.userId, amount: toKopecks(prizes[i] ?? 0) }))
        .filter((w) => w.amount > 0);
      for (const w of winners) {
        await notify(trx, w.userId, {
          kind: 'vote_reward',
          title: `Приз за ${w.place}-е место в голосовании за ${month}`,
          body: `На баланс: +${formatRoubles(w.amount)}`,
          link: '/vote',
        });
        await postLedger(trx, {
          userId: w.userId,
          amount: w.amount,
          reason: 'vote_prize',
          authorId: null,
          ref: `vote_prize:${month}:${w.place}`,
          note: `Приз за ${w.place}-е место по голосам за ${month}`,
        });
      }
      await recordPrizeWinners(trx, month, winners);
      return { month, winners };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

export function votePrizesJob(ctx: AppContext): ScheduledJobSpec {
  return { name: VOTE_PRIZES_JOB, everyMs: 3_600_000, run: () => payMonthPrizes(ctx) };
}
