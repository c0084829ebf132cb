import { FiscalSettings, type PaymentSubject } from '@kubik/contract';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { defineSettings } from '../../lib/settings.ts';

/**
 * The seller's fiscal details (Админ-панель → Платежи → Продавец и чеки): the legal form, name,
 * ИНН, ОГРН/ОГРНИП, the tax system and default VAT rate of receipts, contacts and the site's age
 * mark. Receipts, the footer and the legal documents' starter texts read them.
 */
export const FiscalSettingsDoc = defineSettings({
  key: 'fiscal',
  schema: FiscalSettings,
  defaults: (config: Readonly<Config>) => ({
    legal_form: 'ip' as const,
    name: '',
    inn: '',
    ogrn: '',
    // УСН «доходы»: the usual choice of a small ИП; a receipt is not sent before the owner saves the details.
    tax_system_code: 2,
    vat_code: 1,
    email: plainEmail(config.support.email),
    phone: '',
    address: '',
    age_mark: '12+' as const,
  }),
});

function plainEmail(v: string): string {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? v : '';
}

/** What a game site sells is a service (access to a privilege, an in-game item delivered on the server). */
export const DEFAULT_PAYMENT_SUBJECT: PaymentSubject = 'service';

export async function fiscalSettings(ctx: Pick<AppContext, 'settings'>): Promise<FiscalSettings> {
  return ctx.settings.get(FiscalSettingsDoc);
}

/** What is missing for a receipt naming the seller (Russian field names); empty when ready. */
export function fiscalMissing(f: FiscalSettings): string[] {
  const missing: string[] = [];
  if (!f.name) missing.push('Наименование продавца');
  if (!f.inn) missing.push('ИНН');
  if (f.legal_form !== 'self_employed' && !f.ogrn) missing.push(f.legal_form === 'ooo' ? 'ОГРН' : 'ОГРНИП');
  return missing;
}
