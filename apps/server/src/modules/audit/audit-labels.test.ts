import {
  AUDIT_ACTION_LABELS,
  AUDIT_ENTITY_ALIASES,
  AUDIT_ENTITY_LABELS,
  AUDIT_HIDDEN_FIELDS,
  auditFieldNamed,
  auditSubject,
  type AuditEntry,
} from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { addServer } from '../shop/shop.test-helpers.ts';

/*
 * The audit log reads in Russian: every change the admin area can make here is made once, and
 * every entry it leaves is checked — its action and section have Russian names, every field of its
 * records has its own (not «Другое поле»), and what it is about is named, not an internal key
 * («№yoomoney»). A feature that records something new adds its words to the contract's
 * audit-labels.ts, or this test names what is missing.
 */

describe.each(dbKinds)('the audit log names everything it records in Russian, on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let playerId: number;
  let entries: AuditEntry[] = [];

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = admin) => {
    const res = await t.app.inject(asUser(token, { method, url, ...(payload ? { payload } : {}) }));
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.body ? res.json<Record<string, unknown>>() : {};
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Owner', { admin: true });
    playerId = await seedUser(t, 'Steve', { balanceKopecks: 100_000 });
    admin = await loginAs(t, 'Owner');
    const player = await loginAs(t, 'Steve');
    const server = await addServer(t, { name: 'Выживание', rcon_port: 25575, rcon_password: 'pw' });

    // Content and the shop.
    const news = await call('POST', '/api/tidings/news', { title: 'Открытие', content: 'Сервер открыт' });
    await call('PUT', `/api/tidings/${news.id}`, { title: 'Открытие сезона', content: 'Сервер открыт', image_url: '/favicon.svg' });
    await call('DELETE', `/api/tidings/${news.id}`);
    const tier = await call('POST', '/api/donate/add', {
      title: 'VIP',
      content: 'Привилегия',
      amount: 300,
      currency: '₽',
      sale_amount: 250,
      sale_ends_at: Date.now() + 86_400_000,
      periods: [
        { months: 1, discount: 0 },
        { months: 3, discount: 10 },
      ],
      grant_commands: ['lp user {player} parent add vip'],
      revoke_commands: ['lp user {player} parent remove vip'],
      server_ids: [server],
      kits: [{ name: 'Еда', description: '', command: '/kit food', period: 7, kitImg: '', give_commands: ['give {player} bread 16'] }],
      features: [{ title: 'Полёт', value: '', description: '', check: true }],
    });
    await call('PUT', `/api/donate/${tier.id}`, { title: 'VIP+', content: 'Привилегия', amount: 350, currency: '₽' });
    const category = await call('POST', '/api/shop/admin/categories', { name: 'Редкости', sale_percent: 10, sale_ends_at: null });
    await call('PUT', `/api/shop/admin/categories/${(category as { category?: { id: number } }).category?.id ?? category.id}`, {
      name: 'Редкое',
      position: 2,
      sale_percent: null,
      sale_ends_at: null,
    });
    const item = await call('POST', '/api/shop/admin/create', {
      name: 'Алмаз',
      price: 12.5,
      count: 10,
      icon: '/favicon.svg',
      category: 'Редкое',
      pieces: 16,
      sale_price: 10,
      sale_ends_at: Date.now() + 86_400_000,
      limit_per_player: 2,
      limit_period: 'day',
      commands: ['give {player} minecraft:diamond {quantity}'],
    });
    await call('PUT', `/api/shop/admin/${item.id}`, {
      name: 'Алмазы ×16',
      price: 15,
      count: null,
      icon: '/favicon.svg',
      category: 'Редкое',
      server_id: server,
      status: 'Снят с продажи',
      commands: [],
    });
    const other = await call('POST', '/api/shop/admin/create', { name: 'Хлеб', price: 1, count: 5, icon: '/favicon.svg' });
    const promo = await call('POST', '/api/admin/promo-codes', {
      code: 'OLDCODE',
      kind: 'fixed',
      value: 50,
      applies_to: 'shop',
      item_ids: [other.id],
      min_total: 100,
      max_uses: 10,
      starts_at: Date.UTC(2025, 0, 1),
      ends_at: Date.UTC(2025, 1, 1),
    });
    await call('PUT', `/api/admin/promo-codes/${promo.id}`, { code: 'OLDCODE', kind: 'percent', value: 20, applies_to: 'donate' });
    await call('POST', `/api/admin/promo-codes/${promo.id}/disable`, { disabled: true });

    // A purchase, then its delivery sent again and refunded.
    const bought = await call('POST', '/api/shop/buy', { shop_id: other.id, quantity: 1 }, player);
    const delivery = await t.handle.db
      .selectFrom('deliveries')
      .select('id')
      .where('source', '=', 'shop')
      .where('source_id', '=', bought.order_id as number)
      .executeTakeFirstOrThrow();
    await call('POST', `/api/admin/deliveries/${delivery.id}/resend`, {});
    await call('POST', `/api/shop/admin/deliveries/${delivery.id}/refund`);

    // Servers, players, staff, privileges.
    await call('PUT', `/api/servers/${server}`, { name: 'Выживание 2', description: 'Сервер', ip_address: '127.0.0.1', port: 25566 });
    await call('PUT', `/api/admin/bans/commands/${server}`, { ban_command: 'ban {player} {reason}', unban_command: 'pardon {player}' });
    await call('PUT', `/api/user/${playerId}`, { balance: 42, password: 'new-password-1' });
    await call('POST', `/api/admin/users/${playerId}/balance`, { amount: 10, comment: 'Компенсация' });
    await call('POST', `/api/admin/users/${playerId}/ban`, { reason: 'Читы', note: 'Флай-хак на спавне', until: null });
    await call('DELETE', `/api/admin/users/${playerId}/ban`);
    await call('POST', `/api/admin/users/${playerId}/notice`, { title: 'Привет', body: 'Как дела?' });
    await call('POST', '/api/admin/notices', { title: 'Всем', body: 'Ивент в субботу' });
    const role = await call('POST', '/api/admin/roles', { name: 'Модератор', permissions: ['bans'] });
    await call('PUT', `/api/admin/roles/${role.id}`, { name: 'Модератор чата', permissions: ['bans', 'audit'] });
    await call('PUT', `/api/admin/users/${playerId}/role`, { role_id: role.id });
    await call('PUT', `/api/admin/users/${playerId}/role`, { role_id: null });
    await call('DELETE', `/api/admin/roles/${role.id}`);
    const grant = await call('POST', '/api/admin/privileges', { username: 'Steve', tier_id: tier.id, days: 10 });
    await call('PUT', `/api/admin/privileges/${grant.id}`, { expires_at: Date.now() + 20 * 86_400_000 });
    await call('DELETE', `/api/admin/privileges/${grant.id}`);

    // Pages, votes, the launcher, payments, every settings document.
    await call('PUT', '/api/admin/pages/offer', { title: 'Оферта', body: 'Условия', place: 'footer', position: 5 });
    await call('DELETE', '/api/admin/pages/offer').catch(() => {});
    await call('PUT', '/api/admin/pages/events', { title: 'Ивенты', body: 'Каждую субботу', place: 'menu' });
    await call('DELETE', '/api/admin/pages/events');
    const site = await call('POST', '/api/admin/vote-sites', {
      kind: 'topcraft',
      title: 'TopCraft',
      url: 'https://topcraft.club/servers/1/',
      secret: 'vote-secret',
      reward_amount: 5,
      reward_commands: ['give {player} diamond 1'],
      server_ids: [server],
      cooldown_hours: 24,
    });
    await call('PUT', `/api/admin/vote-sites/${site.id}`, {
      kind: 'topcraft',
      title: 'TopCraft.ru',
      url: 'https://topcraft.club/servers/1/',
      reward_amount: 7,
    });
    await call('DELETE', `/api/admin/vote-sites/${site.id}`);
    await call('PUT', '/api/admin/launcher/windows/link', { version: '1.2.0', url: 'https://example.com/Launcher.exe' });
    await call('DELETE', '/api/admin/launcher/windows?reset=1');
    await call('PUT', '/api/admin/payment-providers/yoomoney', {
      enabled: true,
      min: 10,
      max: 5000,
      fields: { wallet: '4100111111111111' },
      secrets: { notification_secret: 'a-long-notification-secret' },
    });
    await call('PUT', '/api/admin/settings', { name: 'Кубик', game_address: 'play.kubik.test', footer_text: 'Подвал' });
    await call('PUT', '/api/admin/home-settings', { recent_purchases: false, top_donors: true });
    await call('PUT', '/api/admin/game-login', { server_name: 'Кубик', help_text: 'Заходите' });
    await call('PUT', '/api/admin/payment-settings', { vat_code: 4, bonus_rules: [{ from: 1000, percent: 10 }] });
    await call('PUT', '/api/admin/security', { require_admin_two_factor: false });
    await call('PUT', '/api/admin/vote-prizes', { prizes: [100, 50] });
    await call('PUT', '/api/admin/referral-settings', {
      share_percent: 5,
      share_days: 30,
      bonus_amount: 10,
      bonus_min_topup: 100,
      hold_days: 3,
    });
    await call('PUT', '/api/admin/social-settings', {
      telegram_bot_name: 'kubik_bot',
      telegram_bot_token: '123456:ABCdefGhIJKlmnoPQRstuVWXyz',
    });

    const page = await call('GET', '/api/admin/audit?per_page=200');
    entries = page.entries as AuditEntry[];
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has made the changes it checks', () => {
    const actions = new Set(entries.map((e) => e.action));
    for (const action of [
      'news.update',
      'donate.create',
      'shop.item.update',
      'shop.category.update',
      'promo.create',
      'promo.update',
      'promo.disable',
      'delivery.resend',
      'delivery.refund',
      'server.update',
      'server.ban_commands',
      'user.update',
      'user.balance',
      'user.ban',
      'user.unban',
      'notice.broadcast',
      'role.update',
      'user.role',
      'privilege.grant',
      'privilege.revoke',
      'page.update',
      'vote_site.update',
      'launcher.link',
      'payment.provider',
      'settings.update',
    ])
      expect(actions, action).toContain(action);
    expect(new Set(entries.filter((e) => e.action === 'settings.update').map((e) => e.entity_id))).toEqual(
      new Set(['site', 'home', 'game_login', 'payments', 'security', 'vote_prizes', 'referrals', 'social']),
    );
  });

  it('names every action, section and field, and what each entry is about', () => {
    const unnamed: string[] = [];
    const sections = new Set([...Object.keys(AUDIT_ENTITY_LABELS), ...Object.values(AUDIT_ENTITY_ALIASES).flat()]);
    for (const e of entries) {
      if (!AUDIT_ACTION_LABELS[e.action]) unnamed.push(`action ${e.action}`);
      if (!sections.has(e.entity)) unnamed.push(`section ${e.entity}`);
      for (const record of [e.before, e.after])
        for (const key of Object.keys((record as Record<string, unknown> | null) ?? {}))
          if (!AUDIT_HIDDEN_FIELDS.includes(key) && !auditFieldNamed(e.entity, key)) unnamed.push(`${e.action}: ${e.entity}.${key}`);
      const subject = auditSubject(e.entity, e.entity_id, e.before, e.after);
      // A number is a record's number; anything else after «№» is a key («№yoomoney», «№ce48d97c…»).
      if (subject && /№\D/.test(subject)) unnamed.push(`${e.action}: subject ${subject}`);
    }
    expect([...new Set(unnamed)]).toEqual([]);
  });

  it('names things by what they are: the payment method, the player, the code', () => {
    const subject = (action: string) => {
      const e = entries.find((x) => x.action === action)!;
      return auditSubject(e.entity, e.entity_id, e.before, e.after);
    };
    expect(subject('payment.provider')).toBe('ЮMoney');
    expect(subject('user.ban')).toBe('игрок Steve');
    expect(subject('promo.create')).toBe('«OLDCODE»');
    expect(subject('launcher.link')).toBe('Windows');
    expect(subject('delivery.resend')).toMatch(/^выдача №\d+$/);
  });

  it('filters by section, one per name, old entities within their section', async () => {
    const labels = Object.values(AUDIT_ENTITY_LABELS);
    expect(new Set(labels).size).toBe(labels.length);
    await t.handle.db
      .insertInto('audit_log')
      .values({
        actor_id: null,
        action: 'shop.delivery.resend',
        entity: 'shop_delivery',
        entity_id: '1',
        before_json: null,
        after_json: null,
        created_at: Date.now(),
      })
      .execute();
    const deliveries = (await call('GET', '/api/admin/audit?entity=delivery')).entries as AuditEntry[];
    expect(new Set(deliveries.map((e) => e.entity))).toEqual(new Set(['delivery', 'shop_delivery']));
  });
});
