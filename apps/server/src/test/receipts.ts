import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { FakeTBank } from '../../../../testing/payments/tbank-server.ts';
import type { FakeYooKassa } from '../../../../testing/payments/yookassa-server.ts';
import { paymentsConfig } from './payments.ts';
import { asUser, createTestApp, loginAs, seedUser, type TestApp, type TestDbKind } from './test-app.ts';

/** A request as a signed-in user (null: nobody), with a JSON body when one is given. */
export type Call = (token: string | null, method: string, url: string, payload?: unknown) => Promise<LightMyRequestResponse>;

export function callerOf(t: TestApp): Call {
  return (token, method, url, payload) =>
    t.app.inject(asUser(token, { method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }) }));
}

/**
 * The owner's fiscal details as the admin page takes them: an ИП on УСН «доходы» without VAT for
 * ЮKassa's tests, an ООО on ОСН with VAT 20/120 for T-Bank's, so each provider's tax fields are
 * seen with values of their own.
 */
const FISCAL = {
  yookassa: { legal_form: 'ip', name: 'ИП Иванов И. И.', inn: '500100732259', ogrn: '304500116000157', tax_system_code: 2, vat_code: 1 },
  tbank: { legal_form: 'ooo', name: 'ООО «Кубик»', inn: '7707083893', ogrn: '1027700132195', tax_system_code: 1, vat_code: 11 },
};

export interface ReceiptsSite {
  t: TestApp;
  call: Call;
  /** The owner's session. */
  owner: string;
  /** A shop item at 100 ₽, 1000 in stock. */
  itemId: number;
}

/**
 * A site selling with 54-ФЗ receipts through one provider's double, which requires them: the
 * owner signed in, the fiscal details set, one shop item made. The caller stops the double and
 * closes the site.
 */
export async function receiptsSite(kind: TestDbKind, provider: { yookassa: FakeYooKassa } | { tbank: FakeTBank }): Promise<ReceiptsSite> {
  const t = await createTestApp(kind, {
    workers: false,
    rateLimits: { enabled: false },
    payments:
      'yookassa' in provider
        ? paymentsConfig(provider.yookassa, null, {
            yookassa: {
              shopId: provider.yookassa.shopId,
              secretKey: provider.yookassa.secretKey,
              apiUrl: provider.yookassa.apiUrl,
              receipts: true,
              notifyIps: ['185.71.76.0/27'],
            },
          })
        : paymentsConfig(null, provider.tbank, {
            tbank: {
              terminalKey: provider.tbank.terminalKey,
              password: provider.tbank.password,
              apiUrl: provider.tbank.apiUrl,
              receipts: true,
            },
          }),
  });
  const call = callerOf(t);
  await seedUser(t, 'Owner', { admin: true });
  const owner = await loginAs(t, 'Owner');
  const fiscal = await call(owner, 'PUT', '/api/admin/fiscal', 'yookassa' in provider ? FISCAL.yookassa : FISCAL.tbank);
  expect(fiscal.statusCode, fiscal.body).toBe(200);
  const item = await call(owner, 'POST', '/api/shop/admin/create', { name: 'Алмаз', price: 100, count: 1000, icon: '/d.png' });
  expect(item.statusCode, item.body).toBe(201);
  return { t, call, owner, itemId: item.json().id as number };
}
