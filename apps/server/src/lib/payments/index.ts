import type { PaymentProvider } from '@kubik/contract';
import type { PaymentsConfig } from '../../config.ts';
import { tbankAdapter } from './tbank.ts';
import type { PaymentAdapter } from './types.ts';
import { yookassaAdapter } from './yookassa.ts';

export * from './types.ts';
export { tbankToken } from './tbank.ts';

/** The configured providers (credentials set), by name. */
export function createAdapters(cfg: PaymentsConfig): Partial<Record<PaymentProvider, PaymentAdapter>> {
  const out: Partial<Record<PaymentProvider, PaymentAdapter>> = {};
  if (cfg.yookassa) out.yookassa = yookassaAdapter(cfg.yookassa);
  if (cfg.tbank) out.tbank = tbankAdapter(cfg.tbank);
  return out;
}
