import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer } from '../../testing/rcon/vanilla-server.ts';
import { callApi as call, loginUi, registerAndConfirm, see, startSite, toast, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

describe('shop in the browser', () => {
  let site: Site;
  // A game server that behaves like vanilla's RCON (one packet per read, Nagle on, parts of 4096
  // characters); Miner is not in the game at first.
  const rcon = new VanillaRconServer({ password: 'rcon-pass' });

  beforeAll(async () => {
    await rcon.start(0);
    site = await startSite({ DELIVERY_INTERVAL_SEC: '1', RCON_TIMEOUT_MS: '2000' }, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
  });
  afterAll(async () => {
    await site?.stop();
    await rcon.stop();
  });

  it('admin tops up a player and adds an item → the player buys 2 → waits to be in the game → the delivery is done', async () => {
    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Miner');

    const admin = await site.newPage();
    await loginUi(admin, 'Owner');
    // The game server with RCON, through the servers feature's admin API.
    const server = await call(admin, 'POST', '/api/servers/', {
      name: 'Выживание',
      description: 'Сервер для выдачи',
      ip_address: '127.0.0.1',
      rcon_port: rcon.port,
      rcon_password: 'rcon-pass',
    });
    expect(server.status, JSON.stringify(server.json)).toBe(201);
    // The balance, through the admin users API (PUT /api/user/{id} with { balance }).
    const users = (await call(admin, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const list = Array.isArray(users) ? users : users.users;
    const miner = list.find((u) => u.username === 'Miner')!;
    const topUp = await call(admin, 'PUT', `/api/user/${miner.id}`, { balance: 100 });
    expect(topUp.status, JSON.stringify(topUp.json)).toBe(200);

    await admin.goto('/admin/shop');
    await admin.getByRole('heading', { name: 'Товары' }).waitFor();
    await admin.getByRole('button', { name: 'Добавить товар' }).click();
    const form = admin.getByRole('dialog', { name: 'Добавить товар' });
    await form.getByRole('button', { name: 'Сохранить' }).click();
    await form.getByText('Введите название').waitFor();
    await form.getByLabel('Название').fill('Алмаз');
    await form.getByLabel('Minecraft ID').fill('diamond');
    await form.getByLabel('Цена, ₽').fill('12.5');
    await form.getByLabel('Количество').fill('10');
    await form.getByLabel('Иконка').fill('/favicon.svg');
    expect(await form.getByLabel('Категория').inputValue()).toBe('Предметы');
    await form.getByLabel('Сервер выдачи').locator('option', { hasText: 'По умолчанию: Выживание' }).waitFor({ state: 'attached' });
    await form.getByRole('button', { name: 'Сохранить' }).click();
    await toast(admin, 'success', 'Товар добавлен!');
    const row = admin.getByRole('row', { name: /Алмаз/ });
    await row.getByText('В наличии').waitFor();
    await row.getByText('Активен').waitFor();
    await row.getByText('diamond').waitFor();
    await row.getByRole('button', { name: 'Действия с товаром «Алмаз»' }).click();
    await admin.getByText('Выживание').first().waitFor();
    await admin.keyboard.press('Escape');

    await loginUi(player, 'Miner');
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('100'));
    await player.goto('/shop');
    const card = player.getByRole('article', { name: 'Алмаз' });
    await card.getByText('Осталось: 10 шт.').waitFor();
    expect(await player.title()).toBe('Магазин — Kubik');
    await card.getByText(RUB('12,50')).waitFor();
    expect(await player.getByTestId('shop-balance').textContent()).toBe(RUB('100'));

    await card.getByRole('button', { name: 'Купить: Алмаз' }).click();
    const modal = player.getByRole('dialog', { name: 'Подтверждение покупки' });
    const quantity = modal.getByRole('textbox', { name: 'Количество' });
    expect(await quantity.inputValue()).toBe('1');
    expect(await modal.getByRole('button', { name: 'Уменьшить количество' }).isDisabled()).toBe(true);
    // Above the stock is clamped to it; then the funds are short.
    await quantity.fill('50');
    expect(await quantity.inputValue()).toBe('10');
    await modal.getByText('Недостаточно средств на балансе').waitFor();
    expect(await modal.getByTestId('purchase-total').textContent()).toBe(RUB('125'));
    expect(await modal.getByRole('button', { name: 'Увеличить количество' }).isDisabled()).toBe(true);
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    // Empty while typing: allowed, but nothing to confirm.
    await quantity.fill('');
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    await quantity.fill('1');
    await modal.getByRole('button', { name: 'Увеличить количество' }).click();
    expect(await quantity.inputValue()).toBe('2');
    expect(await modal.getByTestId('purchase-total').textContent()).toBe(RUB('25'));
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();

    await toast(player, 'success', 'Покупка совершена! Предмет будет выдан в игре.');
    await modal.waitFor({ state: 'hidden' });
    await card.getByText('Осталось: 8 шт.').waitFor();
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('75'));
    expect(await player.getByTestId('shop-balance').textContent()).toBe(RUB('75'));

    // The purchase waits for its player, and says so; once Miner is in the game it arrives.
    const order = player.getByRole('listitem').filter({ hasText: 'Алмаз × 2' });
    await order.getByText('Зайдите на сервер «Выживание», чтобы получить покупку').waitFor({ timeout: 15_000 });
    await order.getByText('Ждёт: зайдите на сервер «Выживание»').waitFor();
    rcon.join('Miner');
    await order.getByText('Выдано').waitFor({ timeout: 15_000 });
    expect(await order.getByText('Зайдите на сервер').count()).toBe(0);
    // Asked while Miner was away ("No player was found": nothing given), given once Miner joined.
    expect(rcon.commands.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rcon.commands)).toEqual(new Set(['give Miner minecraft:diamond 2']));
    expect(rcon.given).toEqual(['Miner 2 minecraft:diamond']);
    expect(rcon.violations).toEqual([]);

    // The admin sees the stock, and the delivery with the server's answer.
    await admin.goto('/admin/shop');
    await admin.getByRole('row', { name: /Алмаз/ }).getByText('8', { exact: true }).waitFor();
    await admin.getByRole('tab', { name: 'Выдача в игре' }).click();
    const delivery = admin.getByRole('row', { name: /Miner/ });
    await delivery.getByText('Выдано').waitFor();
    await delivery.getByText('Gave 2 [Diamond] to Miner').waitFor();
    await delivery.getByText('give Miner minecraft:diamond 2').waitFor();

    // The profile's shop tab is the same shop, with the same purchases.
    await player.goto('/profile?tab=shop');
    await player.getByRole('article', { name: 'Алмаз' }).getByText('Осталось: 8 шт.').waitFor();
    await player.getByRole('listitem').filter({ hasText: 'Алмаз × 2' }).getByText('Выдано').waitFor();
  });

  it('shows a refused purchase in the open modal, and fits a 360 px phone', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Poor_Kid');
    // The header hides the username behind the menu button on a phone, where loginUi waits for it.
    await loginUi(page, 'Poor_Kid');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/shop');
    const card = page.getByRole('article', { name: 'Алмаз' });
    await card.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await card.getByRole('button', { name: 'Купить: Алмаз' }).click();
    const modal = page.getByRole('dialog', { name: 'Подтверждение покупки' });
    await modal.getByText('Недостаточно средств на балансе').waitFor();
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    await modal.getByRole('button', { name: 'Отмена' }).click();
    await modal.waitFor({ state: 'hidden' });
    await see(page, 'Покупок пока нет');

    // Sold out: the admin sets the count to 0, the card says so.
    const admin = await site.newPage();
    await loginUi(admin, 'Owner');
    const items = (await call(admin, 'GET', '/api/shop/admin/all')).json as { id: number; name: string }[];
    const diamond = items.find((i) => i.name === 'Алмаз')!;
    expect((await call(admin, 'PUT', `/api/shop/admin/${diamond.id}`, { count: 0 })).status).toBe(200);
    await page.reload();
    const soldOut = page.getByRole('article', { name: 'Алмаз' }).getByRole('button', { name: 'Закончился: Алмаз' });
    await soldOut.waitFor();
    expect(await soldOut.isDisabled()).toBe(true);
    expect(await soldOut.textContent()).toBe('Закончился');

    // The admin table scrolls inside its box on a phone; the page itself does not.
    await admin.setViewportSize({ width: 360, height: 740 });
    await admin.goto('/admin/shop');
    await admin.getByRole('row', { name: /Алмаз/ }).getByText('Нет в наличии').waitFor();
    expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  it('the owner checks RCON from the server form, gives an item its own commands, and the player reads why a purchase waits', async () => {
    const admin = await site.newPage();
    await loginUi(admin, 'Owner');

    // «Проверить RCON» with the stored settings, then with a mistyped password.
    await admin.goto('/admin/servers');
    await admin.getByRole('button', { name: 'Действия с сервером «Выживание»' }).click();
    await admin.getByRole('button', { name: 'Изменить', exact: true }).click();
    const form = admin.getByRole('dialog', { name: 'Изменить сервер' });
    await form.getByRole('button', { name: 'Проверить RCON' }).click();
    const result = form.getByTestId('rcon-check-result');
    await result.getByText(/^RCON работает: вход выполнен, сервер ответил на list за \d+ мс/).waitFor();
    await result.getByText('There are 1 of a max of 20 players online: miner').waitFor();
    await form.getByLabel('Пароль RCON', { exact: true }).fill('mistyped');
    await form.getByRole('button', { name: 'Проверить RCON' }).click();
    await result.getByText('Неверный пароль RCON: сервер отклонил вход (проверьте rcon.password в server.properties)').waitFor();
    await form.getByRole('button', { name: 'Отмена' }).click();

    // The owner's own category, then an item in it with its own commands: a command with a line
    // separator is refused next to it.
    await admin.goto('/admin/shop');
    await admin.getByRole('tab', { name: 'Категории' }).click();
    await admin.getByRole('button', { name: 'Добавить категорию' }).click();
    const category = admin.getByRole('dialog', { name: 'Добавить категорию' });
    await category.getByLabel('Название').fill('Редкости');
    await category.getByRole('button', { name: 'Сохранить' }).click();
    await toast(admin, 'success', 'Категория добавлена');
    await admin.getByRole('row', { name: /Редкости/ }).waitFor();
    await admin.getByRole('tab', { name: 'Товары' }).click();
    await admin.getByRole('button', { name: 'Добавить товар' }).click();
    const item = admin.getByRole('dialog', { name: 'Добавить товар' });
    await item.getByLabel('Название').fill('Изумруды ×16');
    await item.getByLabel('Minecraft ID').fill('emerald');
    await item.getByLabel('Цена, ₽').fill('5');
    await item.getByLabel('Количество').fill('20');
    await item.getByLabel('Иконка').fill('/favicon.svg');
    await item.getByLabel('Штук за покупку').fill('16');
    await item.getByLabel('Категория').selectOption('Редкости');
    await item.getByRole('button', { name: 'Добавить команду' }).click();
    await item.getByLabel('Команда 1').fill('give {player} minecraft:{item} {quantity}\u2028op {player}');
    await item.getByRole('button', { name: 'Добавить команду' }).click();
    await item.getByLabel('Команда 2').fill('say {player} купил {quantity} шт.');
    await item.getByRole('button', { name: 'Сохранить' }).click();
    await item
      .getByText('Команда 1: недопустимый символ U+2028 — переводы строк, управляющие и невидимые символы в командах запрещены')
      .waitFor();
    await item.getByLabel('Команда 1').fill('give {player} minecraft:{item} {quantity}');
    await item.getByRole('button', { name: 'Сохранить' }).click();
    await toast(admin, 'success', 'Товар добавлен!');
    const itemRow = admin.getByRole('row', { name: /Изумруды/ });
    await itemRow.getByText('16 шт. за покупку · своих команд: 2').waitFor();
    await itemRow.getByText('Редкости').waitFor();

    // The game server is down: the player reads that it will come by itself; it does once the server is back.
    const port = rcon.port;
    await rcon.stop();
    const player = await site.newPage();
    await loginUi(player, 'Miner');
    await player.goto('/profile?tab=shop');
    await player.getByRole('article', { name: 'Изумруды ×16' }).getByRole('button', { name: 'Купить: Изумруды ×16' }).click();
    const modal = player.getByRole('dialog', { name: 'Подтверждение покупки' });
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();
    await modal.waitFor({ state: 'hidden' });
    const order = player.getByRole('listitem').filter({ hasText: 'Изумруды ×16 × 1' });
    await order.getByText('(16 шт.)').waitFor();
    await order.getByText('Сервер временно недоступен, выдадим автоматически').waitFor({ timeout: 15_000 });
    const before = rcon.commands.length;
    await rcon.start(port);
    await order.getByText('Выдано').waitFor({ timeout: 20_000 });
    expect(rcon.commands.slice(before)).toEqual(['give Miner minecraft:emerald 16', 'say Miner купил 16 шт.']);
    expect(rcon.given.at(-1)).toBe('Miner 16 minecraft:emerald');

    // «Выдача в игре» shows both commands of the delivery, and the source.
    await admin.getByRole('tab', { name: 'Выдача в игре' }).click();
    const row = admin.getByRole('row', { name: /Изумруды/ });
    await row.getByText('Выдано').waitFor();
    await row.getByText('say Miner купил 16 шт.').waitFor();
    await row.getByText(/Магазин · заказ №\d+/).waitFor();
  });
});
