import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

const IP = {
  legal_form: 'ip',
  name: 'ИП Иванов Иван Иванович',
  inn: '500100732259',
  ogrn: '304500116000157',
  tax_system_code: 2,
  vat_code: 1,
};

describe.each(dbKinds)('seller details, legal documents and consent on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let player: string;
  let payStaff: string;
  let viewStaff: string;
  const call = (token: string | null, method: string, url: string, payload?: unknown, headers?: Record<string, string>) =>
    t.app.inject(
      asUser(token, {
        method: method as 'GET',
        url,
        ...(payload === undefined ? {} : { payload: payload as object }),
        ...(headers ? { headers } : {}),
      }),
    );

  async function staff(name: string, permissions: string[]): Promise<string> {
    const id = await seedUser(t, name);
    const role = await call(owner, 'POST', '/api/admin/roles', { name: `Роль ${name}`, permissions });
    expect(role.statusCode, role.body).toBe(200);
    expect((await call(owner, 'PUT', `/api/admin/users/${id}/role`, { role_id: role.json().id })).statusCode).toBe(200);
    return loginAs(t, name);
  }

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false });
    await seedUser(t, 'Owner', { admin: true });
    await seedUser(t, 'Steve');
    owner = await loginAs(t, 'Owner');
    player = await loginAs(t, 'Steve');
    payStaff = await staff('Cashier', ['payments.view', 'payments.refund']);
    viewStaff = await staff('Viewer', ['payments.view']);
  }, 60_000);
  afterAll(async () => t?.close());

  it('the owner and payments staff set the seller; the footer and the offer page show it', async () => {
    expect((await call(null, 'GET', '/api/admin/fiscal')).statusCode).toBe(401);
    expect((await call(player, 'GET', '/api/admin/fiscal')).statusCode).toBe(403);
    expect((await call(viewStaff, 'PUT', '/api/admin/fiscal', IP)).statusCode).toBe(403);
    const before = await call(owner, 'GET', '/api/admin/fiscal');
    expect(before.statusCode).toBe(200);
    expect(before.json().missing).toEqual(['Наименование продавца', 'ИНН', 'ОГРНИП']);

    const saved = await call(payStaff, 'PUT', '/api/admin/fiscal', IP);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ value: { ...IP, age_mark: '12+' }, missing: [] });
    expect((await call(viewStaff, 'GET', '/api/admin/fiscal')).json().value.inn).toBe('500100732259');

    const site = (await call(null, 'GET', '/api/site/settings')).json();
    expect(site).toMatchObject({ legal_seller: IP.name, legal_inn: IP.inn, legal_ogrn: IP.ogrn });
    const legal = (await call(null, 'GET', '/api/legal')).json();
    expect(legal).toMatchObject({
      seller: { name: IP.name, inn: IP.inn, ogrn: IP.ogrn, legal_form_text: 'Индивидуальный предприниматель' },
      age_mark: '12+',
    });

    // Only what is sent changes; an organisation needs its own numbers.
    const org = await call(owner, 'PUT', '/api/admin/fiscal', {
      legal_form: 'ooo',
      name: 'ООО «Кубик»',
      inn: '7707083893',
      ogrn: '1027700132195',
      age_mark: '16+',
    });
    expect(org.statusCode, org.body).toBe(200);
    expect(org.json().value).toMatchObject({ legal_form: 'ooo', tax_system_code: 2, vat_code: 1, age_mark: '16+' });
    expect((await call(null, 'GET', '/api/legal')).json().age_mark).toBe('16+');
  });

  it('refuses wrong numbers with a Russian error naming the field, and changes nothing', async () => {
    const cases: [object, string, RegExp][] = [
      [{ inn: '7707083894' }, 'inn', /ИНН: неверная контрольная цифра/],
      [{ inn: '500100732258' }, 'inn', /ИНН: неверная контрольная цифра/],
      [{ inn: '12345' }, 'inn', /ИНН: 10 цифр/],
      [{ ogrn: '1027700132196' }, 'ogrn', /ОГРН: неверная контрольная цифра/],
      [{ ogrn: '304500116000158' }, 'ogrn', /ОГРН: неверная контрольная цифра/],
      [{ vat_code: 13 }, 'vat_code', /Ставка НДС: код от 1 до 12/],
      [{ vat_code: 0 }, 'vat_code', /Ставка НДС/],
      [{ tax_system_code: 7 }, 'tax_system_code', /Система налогообложения: код от 1 до 6/],
      [{ legal_form: 'zao' }, 'legal_form', /Форма продавца/],
      // The form and the numbers must agree (the stored ООО has a 10-digit ИНН).
      [{ legal_form: 'ip' }, 'inn', /ИНН: у ИП и самозанятого 12 цифр/],
      [{ legal_form: 'self_employed', inn: '500100732259' }, 'ogrn', /ОГРН: у самозанятого его нет/],
      [{ legal_form: 'ip', inn: '500100732259' }, 'ogrn', /ОГРНИП: 15 цифр/],
    ];
    for (const [body, field, text] of cases) {
      const res = await call(owner, 'PUT', '/api/admin/fiscal', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().field, JSON.stringify(body)).toBe(field);
      expect(res.json().error).toMatch(text);
    }
    expect((await call(owner, 'GET', '/api/admin/fiscal')).json().value).toMatchObject({ legal_form: 'ooo', inn: '7707083893' });
    // A самозанятый has no ОГРН.
    const se = await call(owner, 'PUT', '/api/admin/fiscal', { legal_form: 'self_employed', inn: '500100732259', ogrn: '' });
    expect(se.statusCode, se.body).toBe(200);
    expect(se.json().missing).toEqual([]);
  });

  it('per tier and shop item: VAT rate and payment subject, defaulting to the seller’s VAT and «услуга»', async () => {
    const now = Date.now();
    const tier = await t.handle.db
      .insertInto('donate_tiers')
      .values({
        title: 'VIP',
        content: '',
        amount_minor: 10000,
        currency: 'RUB',
        image_url: null,
        is_best: 0,
        position: 1,
        kits_json: '[]',
        features_json: '[]',
        sale_amount_minor: null,
        sale_ends_at: null,
        created_at: now,
        updated_at: now,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const items = await call(owner, 'GET', '/api/admin/fiscal/items');
    expect(items.statusCode, items.body).toBe(200);
    expect(items.json()).toContainEqual({
      kind: 'tier',
      id: tier.id,
      title: 'VIP',
      vat_code: null,
      payment_subject: null,
      effective_vat_code: 1,
      effective_payment_subject: 'service',
    });
    const set = await call(owner, 'PUT', `/api/admin/fiscal/items/tier/${tier.id}`, { vat_code: 11, payment_subject: 'another' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ vat_code: 11, effective_vat_code: 11, effective_payment_subject: 'another' });
    const bad = await call(owner, 'PUT', `/api/admin/fiscal/items/tier/${tier.id}`, { vat_code: 14, payment_subject: null });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('vat_code');
    expect((await call(owner, 'PUT', '/api/admin/fiscal/items/tier/999999', { vat_code: null, payment_subject: null })).statusCode).toBe(
      404,
    );
    expect(
      (await call(viewStaff, 'PUT', `/api/admin/fiscal/items/tier/${tier.id}`, { vat_code: 1, payment_subject: null })).statusCode,
    ).toBe(403);
  });

  it('registration takes the three fields alone until the owner publishes the documents, then asks for each consent apart', async () => {
    const reg = (username: string, extra: object = {}) =>
      call(
        null,
        'POST',
        '/api/user/register',
        { username, email: `${username.toLowerCase()}@example.com`, password: 'Secret-pass-42', ...extra },
        {
          'user-agent': 'TestBrowser/1.0',
        },
      );
    expect((await call(null, 'GET', '/api/legal')).json().register_consents).toEqual([]);
    expect((await reg('Before_Docs')).statusCode).toBe(201);

    // The owner alone publishes; the starter text names the seller.
    const doc = await call(owner, 'GET', '/api/admin/legal/offer');
    expect(doc.statusCode).toBe(200);
    expect(doc.json().template.body).toContain('500100732259');
    expect((await call(payStaff, 'PUT', '/api/admin/legal/offer', doc.json().template)).statusCode).toBe(403);
    expect((await call(owner, 'PUT', '/api/admin/legal/offer', doc.json().template)).statusCode).toBe(200);
    const privacy = (await call(owner, 'GET', '/api/admin/legal/privacy')).json().template;
    expect((await call(owner, 'PUT', '/api/admin/legal/privacy', privacy)).statusCode).toBe(200);
    const legal = (await call(null, 'GET', '/api/legal')).json();
    expect(legal.register_consents).toEqual(['privacy', 'offer']);
    expect(legal.documents.map((d: { kind: string }) => d.kind)).toEqual(['offer', 'privacy']);
    const page = await call(null, 'GET', '/api/legal/offer');
    expect(page.json()).toMatchObject({ version: 1, path: '/legal/offer' });
    expect(page.json().html).toContain('500100732259');
    expect((await call(null, 'GET', '/api/legal/refund')).statusCode).toBe(404);

    const none = await reg('No_Consent');
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'consent_required', field: 'consents' });
    expect(none.json().error).toMatch(/персональных данных/);
    const onlyOffer = await reg('Only_Offer', { consents: ['offer'] });
    expect(onlyOffer.statusCode).toBe(400);
    expect(onlyOffer.json().error).toMatch(/персональных данных/);
    const onlyPrivacy = await reg('Only_Privacy', { consents: ['privacy'] });
    expect(onlyPrivacy.json().error).toMatch(/оферты/);
    const bad = await reg('Bad_Consent', { consents: ['everything'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toMatch(/^consents/);
    expect(
      await t.handle.db
        .selectFrom('users')
        .select('id')
        .where('username', 'in', ['No_Consent', 'Only_Offer', 'Only_Privacy', 'Bad_Consent'])
        .execute(),
    ).toEqual([]);

    const ok = await reg('With_Consent', { consents: ['privacy', 'offer'] });
    expect(ok.statusCode, ok.body).toBe(201);
    const seen = await call(owner, 'GET', `/api/admin/legal/consents?user_id=${ok.json().id}`);
    expect(seen.statusCode).toBe(200);
    expect(
      seen
        .json()
        .items.map((c: { kind: string; version: number; ip: string; user_agent: string; source: string }) => [
          c.kind,
          c.version,
          c.user_agent,
          c.source,
        ])
        .sort(),
    ).toEqual([
      ['offer', 1, 'TestBrowser/1.0', 'register'],
      ['privacy', 1, 'TestBrowser/1.0', 'register'],
    ]);
    expect(seen.json().items[0].ip).toBeTruthy();
    expect((await call(player, 'GET', '/api/admin/legal/consents')).statusCode).toBe(403);
  });

  it("before paying: the offer's new version and the age confirmation are asked, each stored", async () => {
    const needed = async () => (await call(player, 'GET', '/api/legal/consents')).json().needed;
    expect(await needed()).toEqual(['offer', 'privacy', 'age']);
    const given = await call(player, 'POST', '/api/legal/consents', { consents: ['offer', 'privacy', 'age'] });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json().needed).toEqual([]);
    // A new version of the offer asks again, and only for it.
    expect((await call(owner, 'PUT', '/api/admin/legal/offer', { title: 'Оферта', body: 'Новая редакция' })).statusCode).toBe(200);
    expect(await needed()).toEqual(['offer']);
    const versions = (await call(owner, 'GET', '/api/admin/legal/offer')).json().versions;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await call(null, 'GET', '/api/legal/offer')).json().version).toBe(2);
    expect((await call(player, 'POST', '/api/legal/consents', { consents: ['offer'] })).json().needed).toEqual([]);
  });

  it('a самозанятый sees his ЮMoney and FreeKassa incomes per Moscow month, as a table and CSV', async () => {
    const user = await t.handle.db.selectFrom('users').select('id').where('username', '=', 'Steve').executeTakeFirstOrThrow();
    const pay = (id: string, provider: string, rub: number, paidAt: number, status = 'succeeded', refunded = 0) =>
      t.handle.db
        .insertInto('payments')
        .values({
          id,
          user_id: user.id,
          provider,
          amount: rub * 100,
          status,
          created_at: paidAt,
          updated_at: paidAt,
          paid_at: status === 'pending' ? null : paidAt,
          refunded_amount: refunded * 100,
        } as never)
        .execute();
    await pay('00000000-0000-4000-8000-000000000001', 'yoomoney', 1000, Date.UTC(2026, 0, 15), 'refunded', 200);
    // 31 December 22:00 UTC is already 1 January in Moscow.
    await pay('00000000-0000-4000-8000-000000000002', 'freekassa', 500, Date.UTC(2025, 11, 31, 22));
    await pay('00000000-0000-4000-8000-000000000003', 'freekassa', 250, Date.UTC(2026, 1, 10));
    await pay('00000000-0000-4000-8000-000000000004', 'yookassa', 300, Date.UTC(2026, 0, 20));
    await pay('00000000-0000-4000-8000-000000000005', 'yoomoney', 700, Date.UTC(2026, 0, 21), 'pending');
    expect((await call(player, 'GET', '/api/admin/fiscal/incomes?year=2026')).statusCode).toBe(403);
    const res = await call(viewStaff, 'GET', '/api/admin/fiscal/incomes?year=2026');
    expect(res.statusCode, res.body).toBe(200);
    const months = res.json();
    expect(months).toHaveLength(12);
    expect(months[0]).toEqual({
      month: '2026-01',
      count: 2,
      received: 1500,
      refunded: 200,
      income: 1300,
      by_provider: { yoomoney: 800, freekassa: 500 },
    });
    expect(months[1]).toMatchObject({ month: '2026-02', count: 1, income: 250 });
    expect(months[2]).toMatchObject({ count: 0, income: 0 });
    const csv = await call(viewStaff, 'GET', '/api/admin/fiscal/incomes.csv?year=2026');
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const lines = csv.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe('Месяц;Платежей;Получено, ₽;Возвращено, ₽;Доход, ₽;ЮMoney, ₽;FreeKassa, ₽');
    expect(lines[1]).toBe('2026-01;2;1500,00;200,00;1300,00;800,00;500,00');
    expect((await call(viewStaff, 'GET', '/api/admin/fiscal/incomes?year=1999')).statusCode).toBe(400);
  });
});
