// A tier's price as it stands. No zod here: the donate page imports this file alone
// ('@kubik/contract/tier-prices'), and a guest's page must not carry the contract's schemas.

/** The price per month (kopecks) at `now`: the sale's while it runs, else the tier's. */
export function tierAmountNow(
  tier: { amount: number; sale_amount: number | null; sale_ends_at: number | null },
  now: number,
): { amount: number; old: number | null } {
  const onSale = tier.sale_amount !== null && tier.sale_amount < tier.amount && (tier.sale_ends_at === null || tier.sale_ends_at > now);
  return onSale ? { amount: tier.sale_amount!, old: tier.amount } : { amount: tier.amount, old: null };
}

/** Kopecks for `months` of a tier of `amountKopecks` a month with `discount` percent off. */
export function periodTotalKopecks(amountKopecks: number, months: number, discount: number): number {
  return Math.round((amountKopecks * months * (100 - discount)) / 100);
}
