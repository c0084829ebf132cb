import type { PaymentsConfig } from '../config.ts';
import type { FakeTBank } from '../../../../testing/payments/tbank-server.ts';
import type { FakeYooKassa } from '../../../../testing/payments/yookassa-server.ts';

/** YooKassa's published notification senders (the default of YOOKASSA_NOTIFY_IPS). */
export const YOOKASSA_IPS = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.156.11',
  '77.75.156.35',
  '77.75.154.128/25',
  '2a02:5180::/32',
];

/** The site's payments configuration pointed at the fakes. */
export function paymentsConfig(
  yoo: Pick<FakeYooKassa, 'shopId' | 'secretKey' | 'apiUrl'> | null,
  tbank: Pick<FakeTBank, 'terminalKey' | 'password' | 'apiUrl'> | null,
  extra: Partial<PaymentsConfig> = {},
): PaymentsConfig {
  return {
    yookassa: yoo ? { shopId: yoo.shopId, secretKey: yoo.secretKey, apiUrl: yoo.apiUrl, receipts: false, notifyIps: YOOKASSA_IPS } : null,
    tbank: tbank ? { terminalKey: tbank.terminalKey, password: tbank.password, apiUrl: tbank.apiUrl } : null,
    minKopecks: 1000,
    maxKopecks: 10_000_000,
    reconcileMs: 300_000,
    maxPending: 1000,
    ...extra,
  };
}
