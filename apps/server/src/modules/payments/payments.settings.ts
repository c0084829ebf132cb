import { PaymentSettingsBody } from '@kubik/contract';
import { defineSettings } from '../../lib/settings.ts';

/** The owner's payment settings: the receipt's VAT code and the top-up bonus rules. */
export const PaymentSettings = defineSettings({
  key: 'payments',
  schema: PaymentSettingsBody,
  defaults: () => ({ vat_code: 1, bonus_rules: [] }),
});
