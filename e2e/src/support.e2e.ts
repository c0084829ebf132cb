import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSkin, toPng } from '../../testing/skin-images.ts';
import { callApi, errorBeside, loginUi, registerAndConfirm, seeErrorBeside, startSite, toast, until, type Site } from './harness.ts';

describe('support tickets', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
  });

  it('a player opens a ticket on a phone with a picture, staff answer it, the player sees the answer live and replies', async () => {
    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    const category = await callApi(owner, 'POST', '/api/admin/support/categories', { name: 'Покупки', description: 'Не пришла покупка' });
    expect(category.status).toBe(201);
    const categoryId = (category.json as { id: number }).id;
    const withFields = await callApi(owner, 'PUT', `/api/admin/support/categories/${categoryId}`, {
      name: 'Покупки',
      description: 'Не пришла покупка или пришла не та',
      icon: '💳',
      fields: [{ key: 'server', label: 'Сервер', type: 'select', required: true, options: ['Выживание', 'Мини-игры'] }],
    });
    expect(withFields.status).toBe(200);
    expect((await callApi(owner, 'POST', '/api/admin/support/categories', { name: 'Другое', description: 'Всё остальное' })).status).toBe(
      201,
    );
    const canned = await callApi(owner, 'POST', '/api/admin/support/canned', {
      title: 'Выдача',
      text: 'Выдали покупку повторно, проверьте инвентарь.',
    });
    expect(canned.status).toBe(201);

    // The player, on a phone.
    const player = await site.newPage({ width: 360, height: 740 });
    const crashes: string[] = [];
    player.on('pageerror', (e) => crashes.push(e.message));
    await registerAndConfirm(site, player, 'Petya');
    await loginUi(player, 'Petya');
    await player.goto('/support');
    await player.getByRole('heading', { name: 'Поддержка' }).waitFor();
    await player.getByText('Обращений пока нет').waitFor();
    // A long page scrolled down, then the new ticket opens at its top.
    await player.evaluate(() => window.scrollTo(0, 400));
    await player.getByRole('link', { name: 'Новое обращение' }).click();
    await player.getByRole('heading', { name: 'Новое обращение' }).waitFor();
    expect(await player.evaluate(() => window.scrollY)).toBe(0);

    // Sent empty: every error beside its field.
    await player.getByRole('button', { name: 'Отправить' }).click();
    await seeErrorBeside(player.getByLabel('Тема'), 'Заполните поле «Тема»');
    await seeErrorBeside(player.getByLabel('Сообщение'), 'Заполните поле «Сообщение»');
    await player.locator('fieldset.support-categories').getByText('Выберите категорию').waitFor();

    // The category by keyboard; its own field appears and is checked too.
    await player.getByRole('radio', { name: /Покупки/ }).focus();
    await player.keyboard.press('Space');
    const server = player.getByLabel('Сервер');
    await server.waitFor();
    const script = '<img src=x onerror="window.hacked=1"><script>window.hacked=2</script>';
    await player.getByLabel('Тема').fill('Не пришёл алмаз');
    await player.getByLabel('Сообщение').fill(`Купил алмаз, в игре нет.\n${script}`);
    await player.getByRole('button', { name: 'Отправить' }).click();
    await seeErrorBeside(server, 'Заполните поле «Сервер»');
    await server.selectOption('Выживание');
    expect(await errorBeside(player.getByLabel('Тема'))).toBeNull();

    // A picture: sent at once, shown as a chip; a text file is refused beside the button.
    const picker = player.locator('.support-picker input[type="file"]');
    await picker.setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    await player
      .locator('.support-picker .field-error')
      .getByText(/Прикрепить можно только картинку PNG, JPEG или WebP/)
      .waitFor();
    await picker.setInputFiles({ name: 'screen.png', mimeType: 'image/png', buffer: await toPng(testSkin()) });
    await player.getByRole('button', { name: 'Убрать картинку screen.png' }).waitFor();
    expect(await player.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await player.getByRole('button', { name: 'Отправить' }).click();
    await toast(player, 'success', 'Обращение отправлено');
    await player.waitForURL(/\/support\/\d+$/);
    const id = Number(new URL(player.url()).pathname.split('/').pop());
    await player.getByRole('heading', { name: 'Не пришёл алмаз' }).waitFor();
    expect(await player.evaluate(() => window.scrollY)).toBe(0);
    await player.locator('.badge', { hasText: 'Открыт' }).waitFor();
    // The script is shown as text and never ran.
    await player.getByText(script, { exact: false }).waitFor();
    expect(await player.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
    const picture = player.locator('.support-pictures img');
    await until(
      () => picture.evaluate((img) => (img as HTMLImageElement).naturalWidth),
      (w) => w === 64,
      'the picture loaded',
    );
    await player.locator('.support-fact', { hasText: 'Выживание' }).waitFor();
    expect(await player.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    // Staff: Админ-панель → Обращения, the ticket waits for them.
    await owner.goto('/admin/support');
    const row = owner.getByRole('link', { name: `№${id} Не пришёл алмаз` });
    await row.waitFor();
    await owner.getByText('Ждут ответа сотрудников: 1.').waitFor();
    await row.click();
    await owner.getByRole('heading', { name: `№${id} Не пришёл алмаз` }).waitFor();
    await owner.getByText(script, { exact: false }).waitFor();
    // A note first: the player never sees it.
    await owner.getByLabel('Внутренняя заметка').check();
    await owner.getByRole('textbox', { name: 'Внутренняя заметка' }).fill('Проверить лог выдачи за вчера');
    await owner.getByRole('button', { name: 'Сохранить заметку' }).click();
    await toast(owner, 'success', 'Заметка сохранена');
    await owner.getByText('Заметка для сотрудников').waitFor();
    // Then the answer, from a canned one.
    await owner.getByLabel('Шаблон ответа').selectOption({ label: 'Выдача' });
    expect(await owner.getByLabel('Ответ игроку').inputValue()).toBe('Выдали покупку повторно, проверьте инвентарь.');
    await owner.getByRole('button', { name: 'Ответить' }).click();
    await toast(owner, 'success', 'Ответ отправлен');
    await owner.locator('.badge', { hasText: 'Ждёт ответа игрока' }).waitFor();
    await owner
      .getByLabel('Ответственный')
      .evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent)
      .then((name) => {
        expect(name).toBe('Owner');
      });

    // The player's page changes by itself: the answer, the state, the bell.
    await player.getByText('Выдали покупку повторно, проверьте инвентарь.').waitFor({ timeout: 20_000 });
    await player.locator('.badge', { hasText: 'Ждёт ответа игрока' }).waitFor();
    expect(await player.getByText('Проверить лог выдачи').count()).toBe(0);
    await until(
      () => player.getByTestId('bell-count').textContent(),
      (t) => t === '1',
      'the bell',
    );
    const letter = await site.smtp.waitFor('petya@example.com', (l) => l.subject.includes(`Ответ на обращение №${id}`));
    expect(letter.text).toContain(`/support/${id}`);

    // The reply, by keyboard.
    await player.getByLabel('Ваш ответ').focus();
    await player.keyboard.type('Спасибо, пришло!');
    await player.keyboard.press('Tab');
    await player.keyboard.press('Tab');
    expect(await player.evaluate(() => document.activeElement?.textContent)).toBe('Отправить ответ');
    await player.keyboard.press('Enter');
    await player.locator('.support-message', { hasText: 'Спасибо, пришло!' }).waitFor();
    await player.locator('.badge', { hasText: 'Открыт' }).waitFor();
    expect(await player.getByLabel('Ваш ответ').inputValue()).toBe('');

    // Staff close it; the player sees it closed and cannot reply any more.
    await owner.reload();
    await owner.locator('.support-message', { hasText: 'Спасибо, пришло!' }).waitFor();
    await owner.getByRole('button', { name: 'Закрыть', exact: true }).click();
    await owner.getByTestId('confirm-dialog').getByRole('button', { name: 'Закрыть' }).click();
    await toast(owner, 'success', 'Обращение закрыто');
    await player.getByText('Обращение закрыто: создайте новое, если вопрос остался').waitFor({ timeout: 20_000 });
    expect(await player.getByLabel('Ваш ответ').count()).toBe(0);

    // The player's list shows it closed.
    await player.getByRole('link', { name: '← Все обращения' }).click();
    await player.locator('.support-item', { hasText: 'Не пришёл алмаз' }).locator('.badge', { hasText: 'Закрыт' }).waitFor();
    expect(crashes).toEqual([]);
  });

  it('a banned player appeals from the login page, without logging in', async () => {
    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    const player = await site.newPage({ width: 360, height: 740 });
    await registerAndConfirm(site, player, 'Griefer');
    await loginUi(player, 'Griefer');
    const me = (await callApi(player, 'GET', '/api/user/me')).json as { id: number };
    expect(
      (await callApi(owner, 'POST', `/api/admin/users/${me.id}/ban`, { reason: 'Гриф спавна', note: 'Жалобы трёх игроков', until: null }))
        .status,
    ).toBe(200);

    await player.goto('/login');
    await player.getByLabel('Имя или почта').fill('Griefer');
    await player.getByLabel('Пароль').fill('kubik-pass-42');
    await player.getByRole('button', { name: 'Войти' }).click();
    await player.getByText('Аккаунт заблокирован навсегда: Гриф спавна').first().waitFor();
    await player.getByRole('link', { name: 'Обжаловать блокировку' }).click();
    await player.getByRole('heading', { name: 'Обжалование блокировки' }).waitFor();
    await player.getByText('Аккаунт заблокирован навсегда: Гриф спавна').waitFor();
    await player.getByLabel('Почему блокировку стоит снять').fill('Это был не я, играл брат');
    await player.getByRole('button', { name: 'Отправить обжалование' }).click();
    await player.locator('.support-message', { hasText: 'Это был не я, играл брат' }).waitFor();
    await player.locator('.badge', { hasText: 'Открыт' }).waitFor();
    expect(await player.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await owner.goto('/admin/support');
    await owner.getByRole('cell', { name: 'Обжалование блокировки', exact: true }).waitFor();
    await owner.getByRole('link', { name: /Обжалование блокировки/ }).click();
    await owner.getByText(/«Гриф спавна», с .* навсегда — действует/).waitFor();
  });
});
