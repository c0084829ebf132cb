import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

const VIP = {
  title: 'VIP',
  content: 'Для тех, кто играет каждый день.\nВторая строка.',
  amount: 299,
  currency: '₽',
  image_url: '/images/vip.png',
  is_best: true,
  kits: [
    { name: 'Старт', description: 'Набор новичка', command: '/kit start', period: 1, kitImg: 'https://example.com/start.png' },
    { name: 'Еда', description: '', command: '/kit food' },
    { name: 'Броня', description: 'Алмазная', command: '/kit armor', period: 30, kitImg: '' },
  ],
  features: [
    { title: 'Полёт', value: '/fly', description: 'Летайте в лобби', check: true },
    { title: 'Приваты', value: '5 регионов', check: false },
    { title: 'Цветной ник' },
  ],
};

describe.each(dbKinds)('donate on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let adminId: number;
  let player: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    adminId = await seedUser(t, 'TierAdmin', { admin: true });
    await seedUser(t, 'TierBuyer');
    admin = await loginAs(t, 'TierAdmin');
    player = await loginAs(t, 'TierBuyer');
  });
  afterAll(async () => {
    await t?.close();
  });

  type Tier = { id: number; title: string; amount: number; position: number; kits: { name: string }[]; features: { title: string }[] };
  const tiers = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/donate/fully' });
    expect(res.statusCode).toBe(200);
    return res.json<Tier[]>();
  };
  const add = (token: string | null, payload: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/donate/add', payload: payload as object }));
  const tierCount = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('donate_tiers')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('creates a tier with kits and features in the given order, with defaults filled in', async () => {
    expect(await tiers()).toEqual([]);
    const res = await add(admin, VIP);
    expect(res.statusCode).toBe(201);
    const tier = res.json();
    expect(tier).toEqual({
      id: tier.id,
      title: 'VIP',
      content: 'Для тех, кто играет каждый день.\nВторая строка.',
      amount: 299,
      currency: '₽',
      image_url: '/images/vip.png',
      is_best: true,
      position: 0,
      kits: [
        {
          id: tier.kits[0].id,
          name: 'Старт',
          description: 'Набор новичка',
          command: '/kit start',
          period: 1,
          kitImg: 'https://example.com/start.png',
          give_commands: [],
        },
        { id: tier.kits[1].id, name: 'Еда', description: '', command: '/kit food', period: 7, kitImg: null, give_commands: [] },
        { id: tier.kits[2].id, name: 'Броня', description: 'Алмазная', command: '/kit armor', period: 30, kitImg: null, give_commands: [] },
      ],
      features: [
        { title: 'Полёт', value: '/fly', description: 'Летайте в лобби', check: true },
        { title: 'Приваты', value: '5 регионов', description: null, check: false },
        { title: 'Цветной ник', value: null, description: null, check: false },
      ],
      // Privileges: every server with RCON, no commands, the default periods.
      server_ids: [],
      grant_commands: [],
      revoke_commands: [],
      periods: [
        { months: 1, discount: 0, total: 299 },
        { months: 3, discount: 0, total: 897 },
        { months: 6, discount: 0, total: 1794 },
        { months: 12, discount: 0, total: 3588 },
      ],
      sellable: true,
      sale_amount: null,
      sale_ends_at: null,
      // Not offered by subscription unless the owner says so.
      subscription: false,
      subscription_months: 1,
    });
    // Kits have ids of their own, distinct across the list.
    expect(new Set(tier.kits.map((k: { id: number }) => k.id)).size).toBe(3);
    expect(await tiers()).toEqual([tier]);
    // The price is kept in hundredths, so 199.99 survives both databases exactly.
    const cheap = await add(admin, { title: 'Mini', content: 'Для начала', amount: 199.99, currency: 'RUB' });
    expect(cheap.statusCode).toBe(201);
    expect(cheap.json()).toMatchObject({ amount: 199.99, position: 1, is_best: false, image_url: null, kits: [], features: [] });
    const row = await t.handle.db
      .selectFrom('donate_tiers')
      .select('amount_minor')
      .where('id', '=', cheap.json().id)
      .executeTakeFirstOrThrow();
    expect(Number(row.amount_minor)).toBe(19999);

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'donate.create')
      .where('entity_id', '=', String(tier.id))
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actor_id: adminId, entity: 'donate', before_json: null });
    expect(JSON.parse(audit.after_json!)).toMatchObject({ title: 'VIP', kits: [{ name: 'Старт' }, { name: 'Еда' }, { name: 'Броня' }] });
  });

  it('keeps the admin order of tiers, and edits replace kits and features as a whole', async () => {
    const [vip, mini] = await tiers();
    const premium = await add(admin, { title: 'Premium', content: 'Всё включено', amount: 599, currency: '₽', position: 0 });
    expect(premium.statusCode).toBe(201);
    // position 0 ties with VIP and goes after it (older first); Mini stays last.
    expect((await tiers()).map((x) => x.title)).toEqual(['VIP', 'Premium', 'Mini']);

    const edit = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/donate/${vip!.id}`,
        payload: { ...VIP, title: 'VIP+', amount: 349, position: 5, kits: [VIP.kits[2], VIP.kits[0]], features: [] },
      }),
    );
    expect(edit.statusCode).toBe(200);
    expect(edit.json()).toMatchObject({ id: vip!.id, title: 'VIP+', amount: 349, position: 5, features: [] });
    expect(edit.json().kits.map((k: { name: string }) => k.name)).toEqual(['Броня', 'Старт']);
    const list = await tiers();
    expect(list.map((x) => x.title)).toEqual(['Premium', 'Mini', 'VIP+']);

    // Without a position an edit keeps the tier where it is.
    const keep = await t.app.inject(
      asUser(admin, {
        method: 'PUT',
        url: `/api/donate/${mini!.id}`,
        payload: { title: 'Mini', content: 'Для начала', amount: 149, currency: 'RUB' },
      }),
    );
    expect(keep.statusCode).toBe(200);
    expect(keep.json().position).toBe(1);

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'donate.update')
      .where('entity_id', '=', String(vip!.id))
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.before_json!)).toMatchObject({ title: 'VIP', amount: 299 });
    expect(JSON.parse(audit.after_json!)).toMatchObject({ title: 'VIP+', amount: 349 });

    const del = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/donate/${premium.json().id}` }));
    expect(del.statusCode).toBe(200);
    expect(del.json().message).toBe('Донат удалён');
    expect((await tiers()).map((x) => x.title)).toEqual(['Mini', 'VIP+']);
    const gone = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'donate.delete')
      .where('entity_id', '=', String(premium.json().id))
      .executeTakeFirstOrThrow();
    expect(JSON.parse(gone.before_json!)).toMatchObject({ title: 'Premium' });
  });

  it('serves the tiers from memory until the next change', async () => {
    const before = await tiers();
    await t.handle.db.updateTable('donate_tiers').set({ title: 'Изменено в базе' }).execute();
    expect(await tiers()).toEqual(before);
    const del = await t.app.inject(asUser(admin, { method: 'DELETE', url: `/api/donate/${before[0]!.id}` }));
    expect(del.statusCode).toBe(200);
    expect((await tiers()).map((x) => x.title)).toEqual(['Изменено в базе']);
  });

  it('refuses changes from visitors (401) and players (403), whatever they send', async () => {
    const [tier] = await tiers();
    const count = await tierCount();
    const calls = [
      { method: 'POST' as const, url: '/api/donate/add', payload: VIP },
      { method: 'POST' as const, url: '/api/donate/add', payload: { junk: 1 } },
      { method: 'PUT' as const, url: `/api/donate/${tier!.id}`, payload: VIP },
      { method: 'DELETE' as const, url: `/api/donate/${tier!.id}` },
      { method: 'DELETE' as const, url: '/api/donate/abc' },
    ];
    for (const call of calls) {
      const guest = await t.app.inject(call);
      expect(guest.statusCode, `${call.method} ${call.url}`).toBe(401);
      const user = await t.app.inject(asUser(player, call));
      expect(user.statusCode, `${call.method} ${call.url}`).toBe(403);
      expect(errorOf(user)).toBe('Доступно только администраторам');
    }
    expect(await tierCount()).toBe(count);
    expect((await tiers())[0]!.title).toBe(tier!.title);
  });

  it('checks every field and changes nothing on bad input', async () => {
    const count = await tierCount();
    const [tier] = await tiers();
    const base = { title: 'T', content: 'C', amount: 10, currency: '₽' };
    const cases: [unknown, RegExp][] = [
      [{ ...base, title: '' }, /Название доната/],
      [{ ...base, content: ' ' }, /Описание доната/],
      [{ ...base, amount: -1 }, /отрицательной/],
      [{ ...base, amount: '299' }, /Цена/],
      [{ ...base, amount: 1e12 }, /Слишком большая цена/],
      [{ ...base, currency: '' }, /Валюта/],
      [{ ...base, image_url: 'javascript:alert(1)' }, /изображение/],
      [{ ...base, is_best: 'yes' }, /is_best/],
      [{ ...base, position: -1 }, /Порядок/],
      [{ ...base, kits: 'много' }, /Киты/],
      [{ ...base, kits: [{ description: 'без имени' }] }, /Название кита/],
      [{ ...base, kits: [{ name: 'Кит', period: 0 }] }, /Период кита/],
      [{ ...base, kits: [{ name: 'Кит', period: 2.5 }] }, /Период кита/],
      [{ ...base, kits: [{ name: 'Кит', kitImg: 'vbscript:x' }] }, /изображение/],
      [{ ...base, kits: [{ name: 'Кит', extra: 1 }] }, /./],
      [{ ...base, kits: Array.from({ length: 31 }, () => ({ name: 'Кит' })) }, /Не больше 30 китов/],
      [{ ...base, features: [{ value: 'x' }] }, /Название привилегии/],
      [{ ...base, features: [{ title: 'x', check: 'да' }] }, /check/],
      [{ ...base, extra: true }, /./],
      [[], /./],
      [null, /./],
    ];
    for (const [body, text] of cases) {
      for (const [method, url] of [
        ['POST', '/api/donate/add'],
        ['PUT', `/api/donate/${tier!.id}`],
      ] as const) {
        const res = await t.app.inject(
          asUser(admin, { method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        );
        expect(res.statusCode, `${method} ${JSON.stringify(body)}`).toBe(400);
        expect(errorOf(res), JSON.stringify(body)).toMatch(text);
        expect(errorOf(res)).toMatch(/[а-яё]/i);
      }
    }
    expect(await tierCount()).toBe(count);
    expect((await tiers())[0]).toEqual(tier);

    const missing = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/donate/999999', payload: base }));
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing)).toBe('Донат не найден');
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/donate/999999' }))).statusCode).toBe(404);
    expect((await t.app.inject(asUser(admin, { method: 'DELETE', url: '/api/donate/0' }))).statusCode).toBe(400);
  });
});
