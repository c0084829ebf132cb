import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginUi, registerAndConfirm, see, seeErrorBeside, startSite, toast, type Site } from './harness.ts';

/** What an authenticator app shows for the secret typed from the screen, `steps` 30-second steps from now. */
const codeOf = (secret: string, steps = 0) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret.replace(/\s+/g, '')), timestamp: Date.now() + steps * 30_000 });

describe('two-factor login in the browser', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(async () => {
    await site?.stop();
  });

  it('a player turns it on in the profile, logs out and logs in with a code', async () => {
    const page = await site.newPage();
    await registerAndConfirm(site, page, 'Guard_2fa');
    await loginUi(page, 'Guard_2fa');

    await page.goto('/profile?tab=settings');
    await page.getByRole('heading', { name: 'Двухфакторная защита' }).waitFor();
    // The sessions list shows this browser.
    await page.getByTestId('session').filter({ hasText: 'Это устройство' }).waitFor();

    await page.getByRole('button', { name: 'Подключить' }).click();
    const qr = page.getByRole('img', { name: 'QR-код для приложения-аутентификатора' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    expect(secret.replace(/\s+/g, '')).toMatch(/^[A-Z2-7]{32}$/);

    // A wrong code is refused beside the field.
    await page.getByLabel('Код из приложения').fill(codeOf(secret) === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Включить' }).click();
    await seeErrorBeside(page.getByLabel('Код из приложения'), /^Неверный код\. Проверьте время на телефоне/);

    await page.getByLabel('Код из приложения').fill(codeOf(secret));
    await page.getByRole('button', { name: 'Включить' }).click();
    await toast(page, 'success', 'Двухфакторная защита включена');
    const codes = page.getByTestId('recovery-codes').locator('li');
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    const recovery = (await codes.first().textContent())!;
    await page.getByRole('button', { name: 'Скачать' }).waitFor();
    await page.getByRole('button', { name: 'Я сохранил коды' }).click();
    await see(page, 'Осталось 10 кодов восстановления.');

    // Log out through the header menu.
    await page.getByTestId('header-username').click();
    await page.getByRole('menuitem', { name: 'Выйти' }).click();
    await page.waitForURL('**/login');

    // The password alone is not enough: the code field appears.
    await page.getByLabel('Имя или почта').fill('Guard_2fa');
    await page.getByLabel('Пароль').fill('kubik-pass-42');
    await page.getByRole('button', { name: 'Войти' }).click();
    const codeField = page.getByLabel('Код подтверждения');
    await codeField.waitFor();
    expect(page.url()).toContain('/login');
    // Sent without a code, then with a wrong one: each time the reason stands beside the code field.
    await page.getByRole('button', { name: 'Войти' }).click();
    await seeErrorBeside(codeField, 'Введите код из приложения');
    await codeField.fill(codeOf(secret, 1) === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Войти' }).click();
    await seeErrorBeside(codeField, /^Неверный код\. Введите код, который приложение показывает сейчас/);
    expect(await codeField.inputValue()).toBe('');
    // The code used to turn it on cannot be used again: the app's next one (accepted within a step) is typed.
    await codeField.fill(codeOf(secret, 1));
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL(`${site.url}/`);
    expect(await page.getByTestId('header-username').textContent()).toBe('Guard_2fa');

    // A new-device letter was not sent: this browser was known.
    await site.smtp.waitFor('guard_2fa@example.com', (l) => l.subject.startsWith('Двухфакторная защита включена'));
    expect(site.smtp.letters.some((l) => l.to.includes('guard_2fa@example.com') && l.subject.startsWith('Вход с нового устройства'))).toBe(
      false,
    );

    // Turning it off asks for both fields at once, and a wrong password is refused beside it.
    await page.goto('/profile?tab=settings#two-factor');
    const off = page.getByRole('region', { name: 'Отключить' });
    const password = off.getByLabel('Пароль');
    const code = off.getByLabel('Код из приложения или код восстановления');
    await off.getByRole('button', { name: 'Отключить защиту' }).click();
    await seeErrorBeside(password, 'Введите пароль');
    await seeErrorBeside(code, 'Введите код из приложения или код восстановления');
    await password.fill('wrong-pass-99');
    await code.fill(recovery);
    await off.getByRole('button', { name: 'Отключить защиту' }).click();
    await seeErrorBeside(password, 'Пароль указан неверно');
    await password.fill('kubik-pass-42');
    await off.getByRole('button', { name: 'Отключить защиту' }).click();
    await toast(page, 'success', 'Двухфакторная защита отключена');
    await page.getByRole('button', { name: 'Подключить' }).waitFor();
  });

  it('sessions: another browser is listed in words, «Завершить» ends it, «Выйти на всех устройствах» keeps this one', async () => {
    const pc = await site.newPage();
    await registerAndConfirm(site, pc, 'Many_Devices');
    await loginUi(pc, 'Many_Devices');
    const phone = await site.newPage({ width: 360, height: 740 });
    await loginUi(phone, 'Many_Devices');
    const tablet = await site.newPage({ width: 800, height: 1000 });
    await loginUi(tablet, 'Many_Devices');
    // A new browser of an account that had one already: the letter names it.
    const letter = await site.smtp.waitFor('many_devices@example.com', (l) => l.subject.startsWith('Вход с нового устройства'));
    expect(letter.text).toMatch(/Устройство: Chrome \d+, Linux/);
    expect(letter.text).toContain('/profile?tab=settings#sessions');

    await pc.goto('/profile?tab=settings#sessions');
    const rows = pc.getByTestId('session');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.first().textContent()).toContain('Это устройство');
    pc.on('dialog', (d) => void d.accept());
    await rows.nth(1).getByRole('button', { name: 'Завершить' }).click();
    await toast(pc, 'success', 'Сеанс завершён');
    await pc.waitForFunction(() => document.querySelectorAll('[data-testid="session"]').length === 2);

    await pc.getByRole('button', { name: 'Выйти на всех устройствах' }).click();
    await toast(pc, 'success', 'Все другие сеансы завершены, лаунчеры вышли из аккаунта');
    await pc.waitForFunction(() => document.querySelectorAll('[data-testid="session"]').length === 1);
    // The other browsers are logged out at once; this one stays.
    for (const other of [phone, tablet]) {
      await other.goto('/profile');
      await other.waitForURL('**/login');
    }
    await pc.reload();
    await pc.getByTestId('session').first().waitFor();
    expect(pc.url()).toContain('/profile');
  });
});
