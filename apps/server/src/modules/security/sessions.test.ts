import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, dbKinds, seedUser, sendQueuedMail, type TestApp } from '../../test/test-app.ts';
import { deviceName } from './device-name.ts';

const PASSWORD = 'kubik-pass-42';
const CHROME_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX_ANDROID = 'Mozilla/5.0 (Android 14; Mobile; rv:121.0) Gecko/121.0 Firefox/121.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';

describe('device names', () => {
  it('tells the usual browsers and systems in words', () => {
    expect(deviceName(CHROME_WIN)).toBe('Chrome 120, Windows');
    expect(deviceName(FIREFOX_ANDROID)).toBe('Firefox 121, Android');
    expect(deviceName(SAFARI_IPHONE)).toBe('Safari, iPhone');
    expect(
      deviceName(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 YaBrowser/24.1.0.0 Safari/537.36',
      ),
    ).toBe('Яндекс Браузер 24, Windows');
    expect(
      deviceName(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0',
      ),
    ).toBe('Edge 120, macOS');
    expect(deviceName('curl/8.5.0')).toBe('Программа: curl');
    expect(deviceName('')).toBe('Неизвестное устройство');
    expect(deviceName(null)).toBe('Неизвестное устройство');
    expect(deviceName('SomeBot\u0000/1')).toBe('Программа: SomeBot/1');
  });
});

describe.each(dbKinds)('sessions and devices on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false } });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A browser login: its session cookie and device cookie. */
  async function browserLogin(username: string, ua: string, ip: string, device?: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username, password: PASSWORD },
      headers: { 'user-agent': ua },
      remoteAddress: ip,
      cookies: device ? { kubik_device: device } : {},
    });
    expect(res.statusCode, res.body).toBe(200);
    return {
      session: res.cookies.find((c) => c.name === 'kubik_session')!.value,
      device: res.cookies.find((c) => c.name === 'kubik_device')!.value,
    };
  }
  // From the address the first browser logged in from: a use from elsewhere would change the address its session shows.
  const as = (session: string, method: 'GET' | 'POST' | 'DELETE', url: string) =>
    t.app.inject({ method, url, cookies: { kubik_session: session }, remoteAddress: '10.7.0.1' });
  type Listed = { id: string; device: string; ip: string | null; created_at: number; last_seen_at: number; current: boolean };
  const list = async (session: string) => (await as(session, 'GET', '/api/user/sessions')).json<{ sessions: Listed[] }>().sessions;

  it('lists each session with its device, address, first and last use, the current one first', async () => {
    await seedUser(t, 'Sess_List', { password: PASSWORD });
    const before = Date.now();
    const pc = await browserLogin('Sess_List', CHROME_WIN, '10.7.0.1');
    const phone = await browserLogin('Sess_List', FIREFOX_ANDROID, '10.7.0.2');
    const bot = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'Sess_List', password: PASSWORD, bearer: true },
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    // The phone is used later from another address: the list shows where it was last.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/user/me', cookies: { kubik_session: phone.session }, remoteAddress: '10.7.9.9' }))
        .statusCode,
    ).toBe(200);
    // The use is noted after the answer has gone out: wait for it.
    let sessions = await list(pc.session);
    for (let i = 0; i < 50 && sessions.find((s) => s.device === 'Firefox 121, Android')?.ip !== '10.7.9.9'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      sessions = await list(pc.session);
    }
    expect(sessions).toHaveLength(3);
    expect(sessions[0]).toMatchObject({ device: 'Chrome 120, Windows', ip: '10.7.0.1', current: true });
    const phoneRow = sessions.find((s) => s.device === 'Firefox 121, Android')!;
    expect(phoneRow).toMatchObject({ ip: '10.7.9.9', current: false });
    expect(phoneRow.created_at).toBeGreaterThanOrEqual(before);
    expect(phoneRow.last_seen_at).toBeGreaterThanOrEqual(phoneRow.created_at);
    expect(sessions.find((s) => s.device === 'Программа: curl')).toMatchObject({ current: false });
    for (const s of sessions) {
      expect(s.id).toMatch(/^[0-9a-f]{24}$/);
      // Nothing in the list is a usable token.
      expect(JSON.stringify(s)).not.toContain(pc.session);
      expect(JSON.stringify(s)).not.toContain(bot.json().token);
    }
    // The same list from the phone marks the phone.
    expect((await list(phone.session)).find((s) => s.current)!.device).toBe('Firefox 121, Android');
    // Another player's sessions are neither listed nor ended.
    await seedUser(t, 'Sess_Other', { password: PASSWORD });
    const other = await browserLogin('Sess_Other', SAFARI_IPHONE, '10.7.0.3');
    expect(await list(other.session)).toHaveLength(1);
    expect((await as(other.session, 'DELETE', `/api/user/sessions/${phoneRow.id}`)).statusCode).toBe(404);
    expect((await as(phone.session, 'GET', '/api/user/me')).statusCode).toBe(200);
  });

  it('«Завершить» ends one session at once, even one this instance had just looked up', async () => {
    await seedUser(t, 'Sess_End', { password: PASSWORD });
    const pc = await browserLogin('Sess_End', CHROME_WIN, '10.8.0.1');
    const phone = await browserLogin('Sess_End', FIREFOX_ANDROID, '10.8.0.2');
    // The phone's session is now in the user cache.
    expect((await as(phone.session, 'GET', '/api/user/me')).statusCode).toBe(200);
    expect((await as(phone.session, 'GET', '/api/user/me')).statusCode).toBe(200);
    const id = (await list(pc.session)).find((s) => !s.current)!.id;
    const end = await as(pc.session, 'DELETE', `/api/user/sessions/${id}`);
    expect(end.statusCode).toBe(200);
    expect(end.json()).toMatchObject({ current: false });
    const refused = await as(phone.session, 'GET', '/api/user/me');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: 'Invalid token' });
    expect(await list(pc.session)).toHaveLength(1);
    expect((await as(pc.session, 'DELETE', `/api/user/sessions/${id}`)).statusCode).toBe(404);
    expect((await as(pc.session, 'DELETE', '/api/user/sessions/not-an-id')).statusCode).toBe(400);
    // Ending one's own session is logging out: the cookie is cleared too.
    const own = (await list(pc.session))[0]!;
    const self = await as(pc.session, 'DELETE', `/api/user/sessions/${own.id}`);
    expect(self.json()).toMatchObject({ current: true });
    expect(self.cookies.find((c) => c.name === 'kubik_session')?.value).toBe('');
    expect((await as(pc.session, 'GET', '/api/user/me')).statusCode).toBe(401);
  });

  it('«Выйти на всех устройствах» keeps the current session and ends the others, the launchers\u2019 logins and other known devices', async () => {
    const id = await seedUser(t, 'Sess_All', { password: PASSWORD });
    const pc = await browserLogin('Sess_All', CHROME_WIN, '10.9.0.1');
    const phone = await browserLogin('Sess_All', FIREFOX_ANDROID, '10.9.0.2');
    const tablet = await browserLogin('Sess_All', SAFARI_IPHONE, '10.9.0.3');
    expect((await as(tablet.session, 'GET', '/api/user/me')).statusCode).toBe(200);
    const game = await t.app.inject({
      method: 'POST',
      url: '/api/yggdrasil/authserver/authenticate',
      payload: { username: 'Sess_All', password: PASSWORD },
    });
    expect(game.statusCode).toBe(200);
    const accessToken = game.json().accessToken as string;
    const validate = () => t.app.inject({ method: 'POST', url: '/api/yggdrasil/authserver/validate', payload: { accessToken } });
    expect((await validate()).statusCode).toBe(204);

    const res = await t.app.inject({
      method: 'POST',
      url: '/api/user/sessions/revoke-all',
      cookies: { kubik_session: pc.session, kubik_device: pc.device },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ended: 2 });
    expect((await as(pc.session, 'GET', '/api/user/me')).statusCode).toBe(200);
    expect((await as(phone.session, 'GET', '/api/user/me')).statusCode).toBe(401);
    expect((await as(tablet.session, 'GET', '/api/user/me')).statusCode).toBe(401);
    expect((await validate()).statusCode).toBe(403);
    expect(await list(pc.session)).toHaveLength(1);
    const devices = await t.handle.db.selectFrom('known_devices').select('device_hash').where('user_id', '=', id).execute();
    expect(devices).toHaveLength(1);
  });

  it('a login from a new browser sends one letter with time, address, device and the sessions link; not for the first device, a known one or a script', async () => {
    await seedUser(t, 'Sess_Mail', { password: PASSWORD });
    const count = () =>
      t.smtp.letters.filter((l) => l.to.includes('sess_mail@example.com') && l.subject.startsWith('Вход с нового устройства')).length;
    const first = await browserLogin('Sess_Mail', CHROME_WIN, '10.10.0.1');
    await sendQueuedMail(t);
    expect(count()).toBe(0);
    const phone = await browserLogin('Sess_Mail', FIREFOX_ANDROID, '10.10.0.2');
    await sendQueuedMail(t);
    const letter = await t.smtp.waitFor('sess_mail@example.com', (l) => l.subject.startsWith('Вход с нового устройства'));
    expect(letter.text).toContain('IP-адрес: 10.10.0.2');
    expect(letter.text).toContain('Устройство: Firefox 121, Android');
    expect(letter.text).toMatch(/Время: \d\d\.\d\d\.\d{4}, \d\d:\d\d \(МСК\)/);
    expect(letter.text).toContain('http://kubik.test/profile?tab=settings#sessions');
    // The same browsers again (their device cookies), and a script: no more letters.
    await browserLogin('Sess_Mail', FIREFOX_ANDROID, '10.10.0.3', phone.device);
    await browserLogin('Sess_Mail', CHROME_WIN, '10.10.0.4', first.device);
    const bot = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { username: 'Sess_Mail', password: PASSWORD, bearer: true },
    });
    expect(bot.statusCode).toBe(200);
    await sendQueuedMail(t);
    await new Promise((r) => setTimeout(r, 300));
    expect(count()).toBe(1);
    // Two logins from one new browser at the same moment still make one letter.
    await Promise.all([1, 2].map(() => browserLogin('Sess_Mail', SAFARI_IPHONE, '10.10.0.5', 'one-new-device-cookie-value-0123456789')));
    await sendQueuedMail(t);
    await t.smtp.waitFor('sess_mail@example.com', (l) => l.text.includes('Safari, iPhone'));
    await new Promise((r) => setTimeout(r, 300));
    expect(count()).toBe(2);
  });
});
