import { ReferralSettingsBody } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { defineSettings } from '../../lib/settings.ts';
import { storedSettings } from './referrals.repo.ts';

/**
 * The owner's referral rules; nothing is paid until the owner sets a share or a bonus. A reward
 * waits two weeks before it reaches the balance unless the owner says otherwise: long enough
 * for most refunds and chargebacks to show.
 */
const DEFAULTS: ReferralSettingsBody = { share_percent: 0, share_days: 30, bonus_amount: 0, bonus_min_topup: 0, hold_days: 14 };

export const ReferralSettings = defineSettings({
  key: 'referrals',
  schema: ReferralSettingsBody,
  defaults: () => DEFAULTS,
});

/**
 * The rules read inside the caller's transaction (a top-up's): on SQLite the one connection is
 * the transaction's, so the settings store (its own queries) must not be asked from there. As
 * the store reads them, a stored field the schema refuses (a bonus above the minimum top-up,
 * saved before that was refused) falls back to its default.
 */
export async function referralRulesIn(trx: Db): Promise<ReferralSettingsBody> {
  const json = await storedSettings(trx, ReferralSettings.key);
  let stored: Record<string, unknown> = {};
  try {
    const parsed: unknown = json !== undefined ? JSON.parse(json) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) stored = { ...(parsed as Record<string, unknown>) };
  } catch {
    // A broken row reads as nothing set.
  }
  for (;;) {
    const value = ReferralSettings.schema.safeParse({ ...DEFAULTS, ...stored });
    if (value.success) return value.data;
    const bad = value.error.issues.map((i) => String(i.path[0] ?? '')).filter((k) => k in stored);
    if (bad.length === 0) return DEFAULTS;
    for (const k of bad) delete stored[k];
  }
}
