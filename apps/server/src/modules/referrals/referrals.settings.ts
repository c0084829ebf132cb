import { ReferralSettingsBody } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { defineSettings } from '../../lib/settings.ts';

/** The owner's referral rules; nothing is paid until the owner sets a share or a bonus. */
const DEFAULTS = { share_percent: 0, share_days: 30, bonus_amount: 0, bonus_min_topup: 0 };

export const ReferralSettings = defineSettings({
  key: 'referrals',
  schema: ReferralSettingsBody,
  defaults: () => DEFAULTS,
});

/**
 * The rules read inside the caller's transaction (a top-up's): on SQLite the one connection is
 * the transaction's, so the settings store (its own queries) must not be asked from there.
 */
export async function referralRulesIn(trx: Db): Promise<ReferralSettingsBody> {
  const row = await trx.selectFrom('settings').select('value').where('key', '=', ReferralSettings.key).executeTakeFirst();
  let stored: Record<string, unknown> = {};
  try {
    const parsed: unknown = row ? JSON.parse(row.value) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) stored = parsed as Record<string, unknown>;
  } catch {
    // A broken row reads as nothing set.
  }
  const value = ReferralSettings.schema.safeParse({ ...DEFAULTS, ...stored });
  return value.success ? value.data : DEFAULTS;
}
