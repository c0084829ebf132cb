import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Locator, Page } from 'playwright-core';
import { AUDIT_ACTION_LABELS, AUDIT_FIELD_LABELS, auditAction, auditField, auditSubject } from '@kubik/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, loginUi, startSite, toast, type Site } from './harness.ts';

/** The field's own error: the element its aria-describedby names, inside the same .field box. */
async function errorOf(field: Locator): Promise<string | null> {
  return field.evaluate((el) => {
    const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
    const box = el.closest('.field');
    const error = ids.map((id) => document.getElementById(id)).find((e) => e?.classList.contains('field-error'));
    return error && box?.contains(error) ? error.textContent : null;
  });
}

const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('name') ?? null);
const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the admin kit in the browser', () => {
  let site: Site;
  let admin: Page;
  const call = (method: string, url: string, body?: unknown) => callApi(admin, method, url, body);

  beforeAll(async () => {
    site = await startSite({}, { fresh: true });
    site.createAdmin('Owner', 'owner@example.com', 'owner-password');
    admin = await site.newPage();
    await loginUi(admin, 'Owner', 'owner-password');
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a server form submitted empty shows every error at once next to its field, in Russian, and focuses the first', async () => {
    await admin.goto('/admin/servers');
    await admin.getByRole('button', { name: 'Добавить сервер' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Новый сервер' });
    // Opening the modal focuses its first field, not its close button.
    await expect.poll(() => focusedName(admin)).toBe('name');

    await dialog.getByLabel('Ссылка на изображение', { exact: true }).fill('javascript:alert(1)');
    await dialog.getByLabel('Порт', { exact: true }).fill('70000');
    await dialog.getByRole('button', { name: 'Сохранить' }).click();

    const expected: [string, string][] = [
      ['Название', 'Введите название сервера'],
      ['Описание', 'Введите описание сервера'],
      ['Ссылка на изображение', 'Ссылка на изображение: адрес http(s)://… или путь на сайте, начинающийся с /'],
      ['Порт', 'Порт — целое число от 1 до 65535'],
    ];
    await dialog.getByText('Введите название сервера').waitFor();
    for (const [label, message] of expected) {
      const field = dialog.getByLabel(label, { exact: true });
      expect(await errorOf(field), label).toBe(message);
      expect(await field.getAttribute('aria-invalid'), label).toBe('true');
    }
    expect(await dialog.getByLabel('Максимальный онлайн').getAttribute('aria-invalid')).toBeNull();
    await expect.poll(() => focusedName(admin)).toBe('name');

    // The error list names the fields in Russian and leads to each; no code names anywhere.
    const list = dialog.locator('.form-errors');
    expect(await list.getByRole('button').allTextContents()).toEqual(['Название', 'Описание', 'Ссылка на изображение', 'Порт']);
    await list.getByRole('button', { name: 'Порт' }).click();
    await expect.poll(() => focusedName(admin)).toBe('port');
    expect(await dialog.innerText()).not.toMatch(/ip_address|image_url|max_online|rcon_|command_template/);

    // Fixing a field clears its error at once; the others stay.
    await dialog.getByLabel('Название').fill('Лобби');
    await expect.poll(() => errorOf(dialog.getByLabel('Название'))).toBeNull();
    expect(await errorOf(dialog.getByLabel('Описание', { exact: true }))).toBe('Введите описание сервера');
    await dialog.getByRole('button', { name: 'Отмена' }).click();
  });

  it("puts the server's refusal on the field it names, or above the buttons when it names none", async () => {
    // A real refusal the browser cannot foresee: the name is taken (ignoring case).
    await admin.goto('/admin/users');
    await admin.getByRole('button', { name: 'Добавить пользователя' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Новый пользователь' });
    await dialog.getByLabel('Имя пользователя').fill('owner');
    await dialog.getByLabel('Почта').fill('second@example.com');
    await dialog.getByLabel('Пароль').fill('second-password');
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    const username = dialog.getByLabel('Имя пользователя');
    await expect.poll(() => errorOf(username)).toBe('Пользователь с таким именем уже существует.');
    expect(await username.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => focusedName(admin)).toBe('username');
    await dialog.getByRole('button', { name: 'Отмена' }).click();

    // The API's { error, code, field }: any field it names gets the text; without one the form shows it.
    await admin.goto('/admin/news');
    let answer = { error: 'Такой заголовок уже есть', code: 'news_title_taken', field: 'title' } as Record<string, string>;
    await admin.route('**/api/tidings/news', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify(answer) })
        : route.fallback(),
    );
    await admin.getByRole('button', { name: 'Добавить новость' }).click();
    const news = admin.getByRole('dialog', { name: 'Новая новость' });
    await news.getByLabel('Заголовок').fill('Открытие');
    await news.getByLabel('Содержание').fill('Сервер открыт');
    await news.getByRole('button', { name: 'Сохранить' }).click();
    await expect.poll(() => errorOf(news.getByLabel('Заголовок'))).toBe('Такой заголовок уже есть');
    await toast(admin, 'danger', 'Ошибка при сохранении новости');

    answer = { error: 'Сохранение временно недоступно' };
    await news.getByRole('button', { name: 'Сохранить' }).click();
    await news.locator('.form-errors').getByText('Сохранение временно недоступно').waitFor();
    expect(await news.getByLabel('Заголовок').getAttribute('aria-invalid')).toBeNull();
    await admin.unrouteAll();
    await news.getByRole('button', { name: 'Отмена' }).click();
  });

  it('shows a toast above an open modal, where it can be read and closed', async () => {
    await admin.goto('/admin/news');
    await admin.getByRole('button', { name: 'Добавить новость' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Новая новость' });
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    const shown = admin.locator('.toast[data-type="danger"]', { hasText: 'Заполните заголовок и содержание!' });
    await shown.waitFor();
    // Not the only place: the fields say it too.
    expect(await errorOf(dialog.getByLabel('Заголовок'))).toBe('Введите заголовок');

    const box = (await shown.boundingBox())!;
    const hit = await admin.evaluate(
      ([x, y]) => !!document.elementFromPoint(x!, y!)?.closest('.toast'),
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    expect(hit).toBe(true);
    await shown.getByRole('button', { name: 'Закрыть уведомление' }).click();
    await shown.waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Отмена' }).click();
  });

  it('admin screens fit a 360 px phone: tables become cards, nothing scrolls sideways', async () => {
    const item = await call('POST', '/api/shop/admin/create', {
      name: 'Незерит с очень длинным названием для проверки',
      price: 35.5,
      count: 3,
      icon: '/favicon.svg',
    });
    expect(item.status).toBe(201);
    const phone = await site.newPage({ width: 360, height: 740 });
    await loginUi(phone, 'Owner', 'owner-password');
    for (const [screen, row] of [
      ['/admin/users', 'Owner'],
      ['/admin/shop', 'Незерит'],
      ['/admin/servers', null],
      ['/admin/news', null],
      ['/admin/donate', null],
      ['/admin/audit', null],
    ] as const) {
      await phone.goto(screen);
      await phone.getByRole('heading', { level: 2 }).first().waitFor();
      if (row) {
        const card = phone.getByRole('row', { name: new RegExp(row) });
        await card.waitFor();
        const width = (await card.boundingBox())!.width;
        expect(width, screen).toBeLessThanOrEqual(360);
      }
      expect(await noHorizontalScroll(phone), screen).toBe(true);
    }
    // A price with kopecks keeps them.
    await phone.goto('/admin/shop');
    await phone
      .getByRole('row', { name: /Незерит/ })
      .getByText('35,50\u00a0₽')
      .waitFor();
  });

  it('reads the audit log in Russian, money formatted', async () => {
    expect(
      (await call('POST', '/api/shop/admin/create', { name: 'Алмазная кирка', price: 1250.5, count: 1, icon: '/favicon.svg' })).status,
    ).toBe(201);
    await admin.goto('/admin/audit');
    const entry = admin.getByTestId('audit-entry').filter({ hasText: 'Алмазная кирка' }).first();
    await entry.getByText('Товар создан').waitFor();
    await entry.locator('summary').filter({ hasText: 'Записано:' }).click();
    expect(await entry.getByRole('listitem').filter({ hasText: 'Цена:' }).textContent()).toBe('Цена: 1\u00a0250,50\u00a0₽');
    expect(await entry.innerText()).not.toMatch(/shop\.item|price|item_id_minecraft|_kopecks/);
    await admin.getByLabel('Раздел', { exact: true }).selectOption({ label: 'Товары' });
    await admin.getByTestId('audit-entry').filter({ hasText: 'Товар создан' }).first().waitFor();
    expect(await admin.getByTestId('audit-entry').filter({ hasText: 'Пользователь' }).count()).toBe(0);
  });

  it('a settings entry names the settings and the VAT rate, not their keys («№payments», «1»)', async () => {
    const saved = await call('PUT', '/api/admin/payment-settings', { vat_code: 4, bonus_rules: [{ from: 1000, percent: 10 }] });
    expect(saved.status, JSON.stringify(saved.json)).toBe(200);
    await admin.goto('/admin/audit');
    const entry = admin.getByTestId('audit-entry').filter({ hasText: 'Настройки изменены' }).first();
    await entry.getByText('Платежи: бонусы и чек').waitFor();
    await entry.getByText(/^Ставка НДС в чеке: .*→ НДС 20 %$/).waitFor();
    expect(await entry.innerText()).not.toMatch(/payments|vat_code/);
    expect(auditSubject('settings', 'site')).toBe('Настройки сайта');
    expect(auditSubject('settings', 'someday_new')).toBe('Другие настройки');
    expect(auditSubject('news', '12')).toBe('№12');
    expect(auditSubject('news', null)).toBeNull();
  });

  it('names an action or field nobody has labelled yet in Russian, never by its key', () => {
    expect(auditAction('shop.item.create', 'shop_item')).toBe('Товар создан');
    // An entity nobody named (payments have their name now): the verb alone; a named one adds its section.
    expect(auditAction('lottery.create', 'lottery')).toBe('Запись создана');
    expect(auditAction('payment.create', 'payment')).toBe('Запись создана (Платежи)');
    expect(auditAction('server.update', 'server')).toBe('Сервер изменён');
    expect(auditAction('capes.grant', 'server')).toBe('Изменение (Серверы)');
    expect(auditAction('lottery.chargeback', 'lottery')).toBe('Изменение в админ-панели');
    expect(auditField('lottery', 'prize_kopecks')).toEqual({ label: 'Сумма', kind: 'kopecks' });
    expect(auditField('lottery', 'drawn_at')).toEqual({ label: 'Время', kind: 'datetime' });
    expect(auditField('lottery', 'provider_secret')).toEqual({ label: 'Секретное поле', kind: 'secret' });
    expect(auditField('lottery', 'whatever_else').label).toBe('Другое поле');
    for (const text of [...Object.values(AUDIT_ACTION_LABELS), ...Object.values(AUDIT_FIELD_LABELS).map((f) => f.label)])
      expect(text).not.toMatch(/[a-z]_|\.[a-z]/);
  });

  it('draws ₽ in the site font, and FAQ entries look expandable', async () => {
    await admin.goto('/shop');
    await admin.getByTestId('header-balance').waitFor();
    await expect
      .poll(() =>
        admin.evaluate(() =>
          performance.getEntriesByType('resource').some((r) => /golos-text-latin-ext-\d+-normal-.*\.woff2$/.test(r.name)),
        ),
      )
      .toBe(true);

    const guest = await site.newPage();
    await guest.goto('/help');
    const summary = guest.getByText('Я забыл пароль. Что делать?');
    await summary.waitFor();
    const marker = await summary.evaluate((el) => getComputedStyle(el, '::before').borderInlineStartWidth);
    expect(marker).toBe('7px');
  });

  it('keeps the first page under its JavaScript budget: the kit loads with the admin screens only', () => {
    const dist = process.env.WEB_DIST ?? path.resolve(import.meta.dirname, '../../apps/web/dist');
    const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    const gzip = scripts.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(dist, file))).length, 0);
    // 90 KB until round three; its shell (the cart counter's and the bell's loaders, the staff-aware
    // header, the paged news) measured 90.3 KB with every new screen lazy; the footer's legal links
    // and age mark, the consent boxes and the goal bar brought it to 93.1 KB. Raised twice, by 2 KB each.
    expect(gzip / 1024).toBeLessThan(94);
    for (const file of scripts) expect(readFileSync(path.join(dist, file), 'utf8')).not.toContain('Проверьте поля');
  });
});
