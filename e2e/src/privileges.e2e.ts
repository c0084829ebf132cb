import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer } from '../../testing/rcon/vanilla-server.ts';
import { callApi as call, loginUi, registerAndConfirm, seeErrorBeside, startSite, toast, type Site } from './harness.ts';

const RUB = (n: string) => `${n}\u00a0₽`;

describe('privileges in the browser', () => {
  let site: Site;
  // The player is in the game, so the grant and the kit arrive at once.
  const rcon = new VanillaRconServer({ password: 'rcon-pass', online: ['Knight'] });

  beforeAll(async () => {
    await rcon.start(0);
    site = await startSite({ DELIVERY_INTERVAL_SEC: '1', RCON_TIMEOUT_MS: '2000' }, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'kubik-pass-42');
  });
  afterAll(async () => {
    await site?.stop();
    await rcon.stop();
  });

  it('admin sets up VIP with commands and a kit → the player buys a month → sees it in the profile → claims the kit, then sees the countdown', async () => {
    const admin = await site.newPage();
    await loginUi(admin, 'Owner');
    const server = await call(admin, 'POST', '/api/servers/', {
      name: 'Выживание',
      description: 'Сервер для выдачи',
      ip_address: '127.0.0.1',
      rcon_port: rcon.port,
      rcon_password: 'rcon-pass',
    });
    expect(server.status, JSON.stringify(server.json)).toBe(201);

    // The tier through the admin form: main tab, then «Покупка и команды», then a kit with its give command.
    await admin.goto('/admin/donate');
    await admin.getByRole('button', { name: 'Добавить донат' }).click();
    const form = admin.getByRole('dialog', { name: 'Новый донат' });
    await form.getByLabel('Название', { exact: true }).fill('VIP');
    await form.getByLabel('Описание', { exact: true }).fill('Для тех, кто играет каждый день');
    await form.getByLabel('Цена в месяц', { exact: true }).fill('150');
    await form.getByRole('tab', { name: 'Покупка и команды' }).click();
    await form.getByLabel('Срок 1, месяцев').waitFor();
    await form.getByRole('group', { name: 'Команды выдачи', exact: true }).getByRole('button', { name: 'Добавить команду' }).click();
    await form
      .getByRole('group', { name: 'Команды выдачи', exact: true })
      .getByLabel('Команда 1')
      .fill('say {player} теперь {tier} на {days} дн.');
    await form.getByRole('group', { name: 'Команды снятия' }).getByRole('button', { name: 'Добавить команду' }).click();
    await form.getByRole('group', { name: 'Команды снятия' }).getByLabel('Команда 1').fill('say {player} больше не {tier}');
    await form.getByRole('tab', { name: /Киты/ }).click();
    await form.getByRole('button', { name: 'Добавить кит' }).click();
    await form.getByLabel('Название кита').fill('Хлеб');
    await form.getByLabel('Команда', { exact: true }).fill('/kit bread');
    await form.getByRole('group', { name: 'Команды выдачи кита' }).getByRole('button', { name: 'Добавить команду' }).click();
    await form.getByRole('group', { name: 'Команды выдачи кита' }).getByLabel('Команда 1').fill('give {player} minecraft:bread 16');
    await form.getByRole('button', { name: 'Сохранить' }).click();
    await toast(admin, 'success', 'Донат добавлен!');

    const player = await site.newPage();
    await registerAndConfirm(site, player, 'Knight');
    const users = (await call(admin, 'GET', '/api/user/all')).json as
      { id: number; username: string }[] | { users: { id: number; username: string }[] };
    const knight = (Array.isArray(users) ? users : users.users).find((u) => u.username === 'Knight')!;
    expect((await call(admin, 'PUT', `/api/user/${knight.id}`, { balance: 200 })).status).toBe(200);

    await loginUi(player, 'Knight');
    await player.goto('/donate');
    await player.getByRole('button', { name: 'Купить' }).click();
    const modal = player.getByRole('dialog', { name: 'Покупка привилегии' });
    expect(await modal.getByTestId('buy-total').textContent()).toBe(RUB('150'));
    // Three months cost more than the balance: the rule of the shop's modal, with the way to top up.
    await modal.getByRole('radio', { name: /3 месяца/ }).check();
    expect(await modal.getByTestId('buy-total').textContent()).toBe(RUB('450'));
    await modal.getByText('Недостаточно средств на балансе').waitFor();
    await modal.getByRole('link', { name: 'Пополнить баланс' }).waitFor();
    expect(await modal.getByRole('button', { name: 'Подтвердить покупку' }).isDisabled()).toBe(true);
    await modal.getByRole('radio', { name: /1 месяц/ }).check();
    await modal.getByRole('button', { name: 'Подтвердить покупку' }).click();
    await toast(player, 'success', 'Привилегия VIP куплена! Команды будут выполнены в игре.');
    expect(await player.getByTestId('header-balance').textContent()).toBe(RUB('50'));
    await player.getByText(/У вас действует до/).waitFor();
    await player.getByRole('button', { name: 'Продлить' }).waitFor();

    await player.goto('/profile');
    const privilege = player.getByRole('article').filter({ hasText: 'VIP' });
    await privilege.getByText('Действует до').waitFor();
    const kit = privilege.getByRole('listitem').filter({ hasText: 'Хлеб' });
    await kit.getByRole('button', { name: 'Получить' }).click();
    await toast(player, 'success', 'Набор «Хлеб» будет выдан в игре');
    await kit
      .getByTestId('kit-countdown')
      .getByText(/Через (6 дней 23 часа|7 дней)/)
      .waitFor();

    // Both reached the game through the delivery queue.
    const until = Date.now() + 15_000;
    while (!rcon.given.includes('Knight 16 minecraft:bread') && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(rcon.given).toContain('Knight 16 minecraft:bread');
    expect(rcon.commands).toContain('say Knight теперь VIP на 30 дн.');
    expect(rcon.violations).toEqual([]);

    // The admin's grants list shows it, active.
    await admin.goto('/admin/donate');
    await admin.getByRole('tab', { name: 'Выданные привилегии' }).click();
    const row = admin.getByRole('row', { name: /Knight/ });
    await row.getByText('Действует').waitFor();
    await row.getByText('Покупка').waitFor();

    // The grant form: every missing field beside itself at once; the server's refusal beside the field it names.
    const grant = admin.getByRole('region', { name: 'Выдать привилегию' });
    await grant.getByLabel('Дней').fill('');
    await grant.getByRole('button', { name: 'Выдать' }).click();
    await seeErrorBeside(grant.getByLabel('Игрок'), 'Введите имя игрока');
    await seeErrorBeside(grant.getByLabel('Донат'), 'Выберите донат');
    await seeErrorBeside(grant.getByLabel('Дней'), 'Срок: ожидалось число дней');
    await grant.getByLabel('Игрок').fill('Nobody');
    await grant.getByLabel('Донат').selectOption({ label: 'VIP' });
    await grant.getByLabel('Дней').fill('30');
    await grant.getByRole('button', { name: 'Выдать' }).click();
    await seeErrorBeside(grant.getByLabel('Игрок'), 'Игрок не найден');
    await grant.getByLabel('Игрок').fill('Knight');
    await grant.getByRole('button', { name: 'Выдать' }).click();
    await toast(admin, 'success', 'Привилегия VIP выдана игроку Knight');
    expect(await grant.locator('.form-errors').count()).toBe(0);
  });
});
