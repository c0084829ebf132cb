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

/** What an inviter was paid for one payment of an invited player ('share' or 'bonus'); unique per (payment, kind). */
export interface ReferralRewardsTable {
  id: Generated<number>;
  inviter_id: number;
  invited_id: number;
  payment_id: string;
  kind: string;
  /** Kopecks of the top-up it was paid for (a refund takes back the same share of the reward). */
  payment_amount: number;
  /** Kopecks paid. */
  amount: number;
  /** Kopecks taken back after refunds (0…amount). */
  reversed: number;
  created_at: number;
}

export interface ReferralsTables {
  referral_codes: ReferralCodesTable;
  referrals: ReferralsTable;
  referral_rewards: ReferralRewardsTable;
}
