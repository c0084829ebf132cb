import type { Db } from '../../db/index.ts';
import { heldTierIds as held } from '../privileges/privileges.service.ts';

/**
 * The donate tiers a player holds at `now` (privileges running then); a cape given to a tier may
 * be worn by its holders. The privileges feature owns the table and the query.
 */
export async function heldTierIds(db: Db, userId: number, now: number): Promise<number[]> {
  return held(db, userId, now);
}
