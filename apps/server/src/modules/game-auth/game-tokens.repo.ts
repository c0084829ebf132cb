import type { Db } from '../../db/index.ts';

/**
 * The last moment an unsigned launcher token (from before tokens were signed) can still be
 * refreshed; 0 when none can. Kept apart from game-auth.repo.ts, which checks tokens with
 * game-tokens.ts and so cannot be imported by it.
 */
export async function unsignedTokensUntil(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('game_tokens')
    .select((eb) => eb.fn.max('refresh_until').as('until'))
    .where('signed', '=', 0)
    .where('refresh_until', '>', now)
    .executeTakeFirst();
  return row?.until == null ? 0 : Number(row.until);
}
