import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUi, see, startSite, toast, type Site } from './harness.ts';

describe('the owner runs the site from the admin area', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite({}, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('an owner changes the site name, the footer and the rules page; a guest sees them, and the hostile Markdown stays inert', async () => {
    const guest = await site.newPage({ width: 360, height: 740 });
    await guest.goto('/rules');
    await guest.getByRole('heading', { name: 'Правила', level: 1 }).waitFor();
    await see(guest, 'Запрещены спам и флуд в чате.');

    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    await owner.goto('/admin/settings');
    await owner.getByLabel('Название сайта').fill('Кубик Тест');
    await owner.getByLabel('ИНН').fill('12345');
    await owner.getByRole('button', { name: 'Сохранить настройки сайта' }).click();
    // Refused in the browser with the contract's words, next to the field.
    await owner.getByText('ИНН: 10 цифр (организация) или 12 цифр (ИП, самозанятый)').waitFor();
    expect(await owner.getByLabel('ИНН').getAttribute('aria-invalid')).toBe('true');
    await owner.getByLabel('ИНН').fill('771234567890');
    await owner.getByLabel('Продавец').fill('ИП Иванов Иван Иванович');
    await owner.getByLabel('Текст в подвале').fill('Лучший сервер для выживания.');
    await owner.getByRole('button', { name: 'Сохранить настройки сайта' }).click();
    await toast(owner, 'success', 'Настройки сохранены');
    // The shell of the tab that saved shows the new name at once.
    await owner.getByRole('link', { name: 'Кубик Тест — на главную' }).waitFor();

    await owner.goto('/admin/pages');
    await owner.getByRole('button', { name: 'Изменить страницу «Правила»' }).click();
    const dialog = owner.getByRole('dialog');
    const body = dialog.getByLabel('Текст (Markdown)');
    await body.fill(
      [
        '## Новое правило',
        '',
        'Не ломать **спавн**. <script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2">',
        '',
        '[плохая ссылка](javascript:window.__pwned=3) [донат](/donate)',
      ].join('\n'),
    );
    // The preview renders as visitors will see it, before saving.
    await dialog.getByTestId('page-preview').getByRole('heading', { name: 'Новое правило' }).waitFor();
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(owner, 'success', 'Страница сохранена');

    await guest.goto('/rules');
    const page = guest.getByTestId('markdown-page');
    await page.getByRole('heading', { name: 'Новое правило', level: 2 }).waitFor();
    await see(guest, '<script>window.__pwned = 1</script>');
    expect(await page.locator('strong').textContent()).toBe('спавн');
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'плохая ссылка' }).count()).toBe(0);
    expect(await guest.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await guest.title()).toBe('Правила — Кубик Тест');
    await guest.getByRole('link', { name: 'Кубик Тест — на главную' }).waitFor();
    await see(guest, 'Лучший сервер для выживания.');
    expect(await guest.getByTestId('footer-legal').textContent()).toBe('ИП Иванов Иван Иванович · ИНН 771234567890');
    // A site link inside the page moves through the router.
    await page.getByRole('link', { name: 'донат' }).click();
    await guest.waitForURL('**/donate');
    // The page the server sends carries the new name for search engines and link previews.
    const html = await (await guest.request.get('/servers')).text();
    expect(html).toContain('<title>Список серверов — Кубик Тест</title>');
    expect(html).toContain('<span>Кубик Тест</span>');
    const overflow = await guest.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow).toBe(false);
  });

  it('an owner writes the оферта and a custom page; the footer and the menu link them, the FAQ entries open', async () => {
    const owner = await site.newPage();
    await loginUi(owner, 'Owner', 'owner-password');
    await owner.goto('/admin/pages');
    await owner.getByRole('button', { name: 'Изменить страницу «Публичная оферта»' }).click();
    let dialog = owner.getByRole('dialog');
    await dialog.getByLabel('Текст (Markdown)').fill('Продавец обязуется передать покупателю игровые ценности.');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(owner, 'success', 'Страница сохранена');

    await owner.getByRole('button', { name: 'Новая страница' }).click();
    dialog = owner.getByRole('dialog');
    await dialog.getByLabel('Адрес страницы').fill('vip');
    await dialog.getByLabel('Заголовок').fill('VIP-зона');
    await dialog.getByLabel('Где ссылка').selectOption('menu');
    await dialog.getByLabel('Текст (Markdown)').fill('Только для **VIP**.');
    await dialog.getByRole('button', { name: 'Сохранить', exact: true }).click();
    await toast(owner, 'success', 'Страница создана');

    const guest = await site.newPage();
    await guest.goto('/help');
    const faq = guest.getByTestId('faq');
    const question = faq.getByText('Я забыл пароль. Что делать?');
    await question.click();
    await faq.getByText(/мы пришлём ссылку для сброса/).waitFor();
    await guest.getByRole('contentinfo').getByRole('link', { name: 'Публичная оферта' }).click();
    await guest.waitForURL('**/p/offer');
    await see(guest, 'Продавец обязуется передать покупателю игровые ценности.');
    await guest.getByRole('navigation', { name: 'Основная навигация' }).getByRole('link', { name: 'VIP-зона' }).click();
    await guest.waitForURL('**/p/vip');
    await guest.getByRole('heading', { name: 'VIP-зона', level: 1 }).waitFor();
    // Not filled in yet: not linked, and its address says so.
    expect(await guest.getByRole('link', { name: 'Политика конфиденциальности' }).count()).toBe(0);
    await guest.goto('/p/privacy');
    await guest.getByRole('heading', { name: 'Страница не найдена' }).waitFor();
    // An address no page can have (a typo with «_», Cyrillic) is «not found» too, not the admin's slug rule.
    for (const address of ['/p/vip_zone', '/p/%D0%BF%D1%80%D0%B0%D0%B2%D0%B8%D0%BB%D0%B0']) {
      await guest.goto(address);
      await guest.getByRole('heading', { name: 'Страница не найдена' }).waitFor();
      expect(await guest.getByText('латинские буквы').count()).toBe(0);
    }
  });
});
