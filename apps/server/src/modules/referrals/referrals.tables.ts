import type { Generated } from 'kysely';

/** Tables of the referrals feature; db/types.ts merges them into the Database type. */
export interface ReferralCodesTable {
  user_id: number;
  code: string;
  created_at: number;
}

/** Who invited whom: one inviter per invited player, written when they registered. */
export interface ReferralsTable {
  invited_id: number;
  inviter_id: number;
  created_at: number;
}

/** What an inviter earns (or was refused) for one payment of an invited player ('share' or 'bonus'); unique per (payment, kind). */
export interface ReferralRewardsTable {
  id: Generated<number>;
  inviter_id: number;
  invited_id: number;
  payment_id: string;
  kind: string;
  /** Kopecks of the top-up it was paid for (a refund takes back the same share of the reward). */
  payment_amount: number;
  /** Kopecks paid, or to be paid when held, or that would have been paid when refused. */
  amount: number;
  /** Kopecks taken back after refunds (0…amount). */
  reversed: number;
  created_at: number;
  /** held | paid | canceled | refused (contract REFERRAL_REWARD_STATUSES); only held → paid and held → canceled happen later. */
  status: string;
  /** Why it was refused or canceled (contract REFERRAL_REWARD_REASONS). */
  reason: string | null;
  /** When a held reward is due for the balance; null when it was never held. */
  release_at: number | null;
  /** When it reached the inviter's balance (its ledger row); null while held, or when it never did. */
  paid_at: number | null;
}

/** Where an account registered from (the address, and the device cookie when the browser had one). */
export interface ReferralSignupsTable {
  user_id: number;
  ip: string | null;
  /** sha256 of the `kubik_device` cookie, as known_devices keeps it. */
  device_hash: string | null;
  created_at: number;
}

export interface ReferralsTables {
  referral_codes: ReferralCodesTable;
  referrals: ReferralsTable;
  referral_rewards: ReferralRewardsTable;
  referral_signups: ReferralSignupsTable;
}
