import type { Db } from '../../db/index.ts';

/**
 * The donate tiers a player holds at `now`; a cape given to a tier may be worn by its holders.
 * Tiers cannot be bought yet: the privileges feature (issue 13) owns the table of who holds
 * what, and replaces this body with a query on it. Until then nobody holds a tier, so capes
 * given to tiers are worn by no one (and nothing here pretends otherwise).
 */
export async function heldTierIds(_db: Db, _userId: number, _now: number): Promise<number[]> {
  return [];
}
