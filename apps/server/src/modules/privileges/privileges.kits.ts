import { durationText, type KitClaimResponse } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { conflict, HttpError, notFound } from '../../lib/errors.ts';
import { enqueueDelivery } from '../deliveries/deliveries.queue.ts';
import { kitsOf } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import { lockPlayer } from '../purchases/purchases.service.ts';
import { tierServers, tierWord } from './privileges.placement.ts';
import * as repo from './privileges.repo.ts';
import { DAY_MS, running, TEXTS, type TierRow } from './privileges.service.ts';

/** POST /api/donate/kits/{kitId}/claim: the holder and the period are checked under the player's lock; the claim and its delivery commit together. */
export async function claimKit(ctx: AppContext, userId: number, kitId: number): Promise<KitClaimResponse> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockPlayer(trx, ctx.dbKind, userId);
    const now = Date.now();
    const tiers = await donateRepo.listTiers(trx);
    let found: { tier: TierRow; kit: ReturnType<typeof kitsOf>[number] } | undefined;
    for (const tier of tiers) {
      const kit = kitsOf(tier).find((k) => k.id === kitId);
      if (kit) found = { tier, kit };
    }
    if (!found) throw notFound(TEXTS.kitNotFound);
    const { tier, kit } = found;
    const held = await repo.runningRow(trx, userId);
    if (!held || held.tier_id !== tier.id || !running(held, now))
      throw new HttpError(403, TEXTS.kitNotHeld(tier.title), { code: 'not_holder' });
    const lastAt = await repo.lastKitClaimAt(trx, userId, kitId);
    if (lastAt !== null && lastAt + kit.period * DAY_MS > now) {
      const next = lastAt + kit.period * DAY_MS;
      throw conflict(TEXTS.kitCooldown(durationText(next - now)), { code: 'kit_cooldown', extra: { next_claim_at: next } });
    }
    if (kit.give_commands.length === 0) throw conflict(TEXTS.noKitCommands(kit.command), { code: 'kit_in_game' });
    const claimId = await repo.insertKitClaim(trx, {
      user_id: userId,
      kit_id: kitId,
      tier_id: tier.id,
      privilege_id: held.id,
      kit_name: kit.name,
      claimed_at: now,
    });
    await enqueueDelivery(trx, {
      source: 'kit',
      sourceId: claimId,
      userId,
      label: `Набор «${kit.name.slice(0, 150)}»`,
      server: tierServers(tier),
      commands: kit.give_commands,
      params: { tier: tierWord(tier.title) },
    });
    return { message: TEXTS.kitClaimed(kit.name), next_claim_at: now + kit.period * DAY_MS };
  });
}
