import { PaymentSettingsBody, type BonusRule } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { ownerOnly } from '../../lib/owner-only.ts';
import { defineSettings } from '../../lib/settings.ts';

/** The owner's payment settings: the receipt's VAT code and the top-up bonus rules. */
export const PaymentSettings = defineSettings({
  key: 'payments',
  schema: PaymentSettingsBody,
  defaults: () => ({ vat_code: 1, bonus_rules: [] }),
});

/**
 * A bonus rule credits balance nobody paid for (up to 100 % of every top-up, the staff member's
 * own included): the rules are the owner's alone. The VAT rate printed in receipts sends no money
 * anywhere and stays with `settings`.
 */
export const BONUS_OWNER_ONLY = 'Бонусы к пополнению меняет только владелец сайта';

/** The rules as a set: their order changes nothing (the best matching one applies). */
function rulesKey(rules: readonly BonusRule[]): string {
  return JSON.stringify(rules.map((r) => [Math.round(r.from * 100), r.percent]).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!));
}

/** Saves the payment settings; a staff member's rules must be sent as they stand, and are not written. */
export async function savePaymentSettings(ctx: AppContext, body: PaymentSettingsBody, editor: { id: number; owner: boolean }) {
  return ctx.settings.set(
    PaymentSettings,
    (_stored, current) => {
      if (editor.owner) return body;
      if (rulesKey(body.bonus_rules) !== rulesKey(current.bonus_rules)) throw ownerOnly(BONUS_OWNER_ONLY, 'bonus_rules');
      return { vat_code: body.vat_code };
    },
    { actorId: editor.id },
  );
}
