import type { DonateTier } from '@kubik/contract';
import { periodTotalKopecks, tierAmountNow } from '@kubik/contract/tier-prices';

// Not in api.ts: that one is on the first page. The prices come from the contract's zod-free
// tier-prices module: a value from '@kubik/contract' itself would bring zod and every schema along.

/** The tier as priced now: its periods' totals at the sale price while a sale runs, and the price before it. */
export function tierNow(tier: DonateTier, now: number): { amount: number; old: number | null; periods: DonateTier['periods'] } {
  const { amount, old } = tierAmountNow(tier, now);
  if (old === null) return { amount, old, periods: tier.periods };
  const kopecks = Math.round(amount * 100);
  return { amount, old, periods: tier.periods.map((p) => ({ ...p, total: periodTotalKopecks(kopecks, p.months, p.discount) / 100 })) };
}
