import type { AnnounceSettingsView } from '@kubik/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DiscordWebhookDouble } from '../../../../../testing/announce/discord-webhook.ts';
import { TelegramBotDouble } from '../../../../../testing/announce/telegram-bot.ts';
import { VkApiDouble } from '../../../../../testing/announce/vk-api.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { siteEvent } from '../users/users.ports.ts';
import { drainAnnouncements } from './announce.service.ts';

const PASSWORD = 'kubik-pass-42';
const TG_TOKEN = '123456789:AAH-test-token-for-the-double_xyz0123';
const VK_TOKEN = 'vk1.a.test-community-token-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(dbKinds)('announcements on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let staff: string;
  let discord: DiscordWebhookDouble;
  let telegram: TelegramBotDouble;
  let vk: VkApiDouble;
  let hook: string;

  beforeAll(async () => {
    discord = await new DiscordWebhookDouble().start();
    telegram = await new TelegramBotDouble().start();
    vk = await new VkApiDouble().start();
    t = await createTestApp(kind, {
      rateLimits: { enabled: false },
      // The passes run here, one at a time, so what each sends is known.
      workers: false,
      announce: { discordUrl: discord.url, telegramApiUrl: telegram.url, vkApiUrl: vk.url },
    });
    await seedUser(t, 'Owner', { admin: true, password: PASSWORD });
    const staffId = await seedUser(t, 'Helper', { password: PASSWORD });
    owner = await loginAs(t, 'Owner', PASSWORD);
    staff = await loginAs(t, 'Helper', PASSWORD);
    const role = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/roles', payload: { name: 'Всё', permissions: ['settings', 'news', 'support'] } }),
    );
    await t.app.inject(
      asUser(owner, { method: 'PUT', url: `/api/admin/users/${staffId}/role`, payload: { role_id: role.json<{ id: number }>().id } }),
    );
    hook = discord.addWebhook();
    telegram.tokens.add(TG_TOKEN);
    telegram.chats.add('-1001234567890');
    vk.tokens.set(VK_TOKEN, '777');
  });
  afterAll(async () => {
    await t?.close();
    await discord?.stop();
    await telegram?.stop();
    await vk?.stop();
  });
  beforeEach(() => {
    discord.messages.length = 0;
    telegram.messages.length = 0;
    vk.posts.length = 0;
  });

  const put = (token: string, body: object) =>
    t.app.inject(asUser(token, { method: 'PUT', url: '/api/admin/announcements', payload: body }));
  const drain = () => drainAnnouncements(t.app.ctx);
  /** Passes until `n` are sent (a provider's wait may hold some back for a while). */
  const drainUntil = async (n: number) => {
    const started = Date.now();
    let sent = await drain();
    while (sent < n && Date.now() - started < 5000) {
      await sleep(100);
      sent += await drain();
    }
    return sent;
  };
  const news = async (title: string, content = 'Текст новости') => {
    const res = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/tidings/news', payload: { title, content } }));
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };

  it('is the owner’s alone; a webhook off DISCORD_URL’s host and bad tokens are refused; secrets never come back', async () => {
    expect((await t.app.inject(asUser(staff, { method: 'GET', url: '/api/admin/announcements' }))).statusCode).toBe(403);
    const staffPut = await put(staff, { discord_webhook_url: hook });
    expect(staffPut.statusCode).toBe(403);
    expect(staffPut.json<{ code: string }>().code).toBe('owner_only');
    for (const bad of [
      'https://evil.example/api/webhooks/123456789/abcdefghijklmnopqrstuvwxyz',
      'http://169.254.169.254/api/webhooks/123456789/abcdefghijklmnopqrstuvwxyz',
      `${discord.url}/api/v9/users/@me`,
      `${discord.url.replace('http://', 'http://user:pw@')}/api/webhooks/123456789/abcdefghijklmnopqrstuvwxyz`,
      'https://discord.com/api/webhooks/123456789/abcdefghijklmnopqrstuvwxyz',
    ]) {
      const res = await put(owner, { discord_webhook_url: bad });
      expect(res.statusCode, bad).toBe(400);
      expect(errorOf(res)).toMatch(/вебхук/i);
    }
    expect((await put(owner, { telegram_bot_token: 'not-a-token' })).statusCode).toBe(400);
    expect((await put(owner, { events: ['news', 'ddos'] })).statusCode).toBe(400);
    expect((await put(owner, { templates: { news: 'x'.repeat(1001) } })).statusCode).toBe(400);

    const res = await put(owner, {
      discord_webhook_url: hook,
      telegram_bot_token: TG_TOKEN,
      telegram_chat_id: '-1001234567890',
      vk_token: VK_TOKEN,
      vk_group_id: '777',
      events: ['news', 'purchase', 'ticket', 'server_down', 'server_up'],
    });
    expect(res.statusCode, res.body).toBe(200);
    const view = res.json<AnnounceSettingsView>();
    expect(view).toMatchObject({ discord: { set: true }, telegram: { set: true, chat_id: '-1001234567890' }, vk: { set: true } });
    const secretPart = hook.split('/').pop()!;
    for (const secret of [secretPart, TG_TOKEN, VK_TOKEN]) expect(res.body).not.toContain(secret);
    const audit = await t.handle.db.selectFrom('audit_log').select(['before_json', 'after_json']).execute();
    for (const secret of [secretPart, TG_TOKEN, VK_TOKEN]) expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('tells of published news in all three channels once, with what players typed shown as text', async () => {
    expect(
      (
        await put(owner, {
          templates: { news: '<b>Новость</b>: {title}\n{url}' },
          events: ['news', 'purchase', 'ticket', 'server_down', 'server_up'],
        })
      ).statusCode,
    ).toBe(200);
    const id = await news('Ивент <script>alert(1)</script> @everyone **жирный**');
    const n = await drain();
    expect(n, JSON.stringify(await t.handle.db.selectFrom('announce_outbox').select(['channel', 'state', 'last_error']).execute())).toBe(3);
    expect(await drain()).toBe(0);
    expect(discord.messages).toHaveLength(1);
    const d = discord.messages[0]!;
    expect(d.allowed_mentions).toEqual({ parse: [] });
    expect(d.content).toContain('\\*\\*жирный\\*\\*');
    expect(d.content).toContain(`/news/${id}`);
    expect(telegram.messages).toHaveLength(1);
    // Telegram shows the template's tags and the title's as typed: nothing becomes markup.
    expect(telegram.messages[0]!.parsed).toContain('<b>Новость</b>: Ивент <script>alert(1)</script>');
    expect(vk.posts).toEqual([{ group: '777', message: expect.stringContaining('Ивент <script>') }]);
    // The same news queued again (a retried request) is not told twice.
    await siteEvent.run(t.handle.db, { kind: 'news', id, title: 'повтор', text: '' });
    expect(await drain()).toBe(0);
    await put(owner, { templates: { news: '' } });
  });

  it('waits as long as Discord and Telegram ask after a 429, and VK after error 6; nothing is lost or sent early', async () => {
    discord.forced429 = 1;
    discord.forcedRetryAfter = 0.4;
    telegram.forced429 = 1;
    telegram.forcedRetryAfter = 1;
    vk.forcedErrors = [6];
    await news('Первая');
    await news('Вторая');
    expect(await drain()).toBe(0);
    const held = await t.handle.db
      .selectFrom('announce_outbox')
      .select(['channel', 'state', 'last_error'])
      .where('state', '=', 'queued')
      .execute();
    expect(held).toHaveLength(6);
    expect(
      held
        .map((h) => h.last_error)
        .filter(Boolean)
        .join(' '),
    ).toMatch(/Discord: слишком часто/);
    // Before the waits are over nothing is sent (a send would be refused again: refusedEarly).
    expect(await drain()).toBe(0);
    await sleep(1100);
    expect(await drain()).toBe(6);
    expect(discord.refusedEarly).toBe(0);
    expect(telegram.refusedEarly).toBe(0);
    expect(discord.messages.map((m) => m.content)).toEqual([expect.stringContaining('Первая'), expect.stringContaining('Вторая')]);
    expect(telegram.messages.map((m) => m.parsed)).toEqual([expect.stringContaining('Первая'), expect.stringContaining('Вторая')]);
    expect(vk.posts).toHaveLength(2);
  });

  it('keeps to Discord’s bucket: with X-RateLimit-Remaining 0 the next message waits for the reset', async () => {
    discord.limit = 2;
    discord.windowMs = 700;
    await put(owner, { telegram_bot_token: null, vk_token: null });
    for (const title of ['A1', 'A2', 'A3', 'A4']) await news(title);
    expect(await drainUntil(4)).toBe(4);
    expect(discord.refusedEarly).toBe(0);
    expect(discord.messages.map((m) => m.content.split(': ')[1]?.split('\n')[0] ?? m.content)).toHaveLength(4);
    discord.limit = 5;
    discord.windowMs = 2000;
    await put(owner, { telegram_bot_token: TG_TOKEN, vk_token: VK_TOKEN });
  });

  it('tells staff of a new ticket, of purchases with the amount shown or hidden, and of servers going down and up', async () => {
    await put(owner, {
      events: ['ticket', 'purchase', 'server_down', 'server_up'],
      purchase_amount: 'hidden',
      telegram_bot_token: null,
      vk_token: null,
    });
    const cat = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/support/categories', payload: { name: 'Покупки', description: 'Не пришла' } }),
    );
    expect(cat.statusCode, cat.body).toBe(201);
    const player = await seedUser(t, 'Buyer', { password: PASSWORD });
    const token = await loginAs(t, 'Buyer', PASSWORD);
    const ticket = await t.app.inject(
      asUser(token, {
        method: 'POST',
        url: '/api/support/tickets',
        payload: { category_id: cat.json<{ id: number }>().id, subject: 'Где *алмазы*?', message: 'Оплатил, не пришло' },
      }),
    );
    expect(ticket.statusCode, ticket.body).toBe(201);
    await siteEvent.run(t.handle.db, { kind: 'purchase', id: 'order:1', player: 'Buyer', item: 'Алмаз × 2', amount: 125_000 });
    // Messages are made by the next pass, with the settings of that moment.
    expect(await drainUntil(2)).toBe(2);
    await put(owner, { purchase_amount: 'shown' });
    await siteEvent.run(t.handle.db, { kind: 'purchase', id: 'order:2', player: 'Buyer', item: 'VIP', amount: 29_900 });
    await siteEvent.run(t.handle.db, { kind: 'server_down', id: 1, server: 'Выживание', at: 1 });
    await siteEvent.run(t.handle.db, { kind: 'server_up', id: 1, server: 'Выживание', online: 3, at: 2 });
    // News is not among the events now.
    await news('Не объявлять');
    expect(await drainUntil(3)).toBe(3);
    expect(await drain()).toBe(0);
    const texts = discord.messages.map((m) => m.content);
    expect(texts[0]).toContain('Где \\*алмазы\\*?');
    expect(texts[0]).toContain('Buyer');
    expect(texts[1]).toBe('🛒 Buyer купил(а) «Алмаз × 2»');
    expect(texts[2]).toMatch(/^🛒 Buyer купил\(а\) «VIP» за 299\s₽$/);
    expect(texts.slice(3)).toEqual(['🔴 Сервер Выживание недоступен', '🟢 Сервер Выживание снова работает']);
    expect(player).toBeGreaterThan(0);
    await put(owner, { telegram_bot_token: TG_TOKEN, vk_token: VK_TOKEN, events: ['news'] });
  });

  it('gives up on a deleted webhook with the reason for the owner, and the test button says how it went', async () => {
    const test = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/announcements/test', payload: { channel: 'telegram' } }),
    );
    expect(test.json()).toEqual({ ok: true, message: expect.stringMatching(/Отправлено/) });
    expect(telegram.messages.at(-1)!.parsed).toMatch(/^\[Проверка\]/);
    discord.hooks.clear();
    await news('После удаления вебхука');
    await drain();
    const view = (await t.app.inject(asUser(owner, { method: 'GET', url: '/api/admin/announcements' }))).json<AnnounceSettingsView>();
    expect(view.recent.find((r) => r.channel === 'discord')).toMatchObject({
      state: 'failed',
      last_error: expect.stringMatching(/вебхук не найден/),
    });
    const bad = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/announcements/test', payload: { channel: 'discord' } }),
    );
    expect(bad.json()).toMatchObject({ ok: false });
    const vkOff = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/announcements/test', payload: { channel: 'nope' } }));
    expect(vkOff.statusCode).toBe(400);
  });
});
