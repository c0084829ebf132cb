import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { linkIn } from '../../../../../testing/smtp-catcher.ts';
import { countTouches } from '../../test/database.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { EmailLinkKey } from '../users/email-tokens.ts';
import { CANCEL_TTL_MS, CONFIRM_TTL_MS } from './email-change.service.ts';

const PASSWORD = 'kubik-pass-42';

describe.each(dbKinds)('e-mail change on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const request = (token: string, body: unknown) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/user/email', payload: body as object }));
  const confirm = (token: string) => t.app.inject({ method: 'POST', url: `/api/user/email/confirm/${token}` });
  const cancel = (token: string) => t.app.inject({ method: 'POST', url: `/api/user/email/cancel/${token}` });
  const emailOf = async (id: number) =>
    (await t.handle.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
  const tokenOf = (link: string, param: 'confirm' | 'cancel') => new URL(link).searchParams.get(param)!;

  /** Requests a change and returns the two letters' tokens. */
  async function requestChange(session: string, from: string, to: string) {
    const res = await request(session, { email: to, password: PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    const toNew = await t.smtp.waitFor(to.toLowerCase(), (l) => l.subject.includes('Подтверждение новой почты'));
    const toOld = await t.smtp.waitFor(from.toLowerCase(), (l) => l.subject.includes('Смена почты') && l.text.includes(to));
    return {
      res,
      confirm: tokenOf(linkIn(toNew, '/email-change?confirm='), 'confirm'),
      cancel: tokenOf(linkIn(toOld, '/email-change?cancel='), 'cancel'),
    };
  }

  it('changes the address only on confirmation; the link works once; the old address gets a notice', async () => {
    const id = await seedUser(t, 'Mover', { password: PASSWORD });
    const session = await loginAs(t, 'Mover', PASSWORD);
    const { res, confirm: token } = await requestChange(session, 'mover@example.com', 'Mover.New@Example.org');
    expect(res.json()).toMatchObject({ pending: { email: 'Mover.New@Example.org' } });
    expect(res.json().pending.expires_at).toBeGreaterThan(Date.now() + CONFIRM_TTL_MS - 60_000);
    // Nothing changed yet.
    expect(await emailOf(id)).toBe('mover@example.com');
    const status = await t.app.inject(asUser(session, { method: 'GET', url: '/api/user/email' }));
    expect(status.json()).toEqual({
      email: 'mover@example.com',
      pending: { email: 'Mover.New@Example.org', expires_at: res.json().pending.expires_at },
    });

    const ok = await confirm(token);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().message).toBe('Почта изменена');
    expect(await emailOf(id)).toBe('Mover.New@Example.org');
    // Single use.
    const again = await confirm(token);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'email_link_invalid', error: 'Ссылка подтверждения недействительна или устарела' });
    // The player's session lives on; login by the new address works, by the old one not.
    expect((await t.app.inject(asUser(session, { method: 'GET', url: '/api/user/me' }))).json().email).toBe('Mover.New@Example.org');
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'mover.new@example.org', password: PASSWORD } }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'mover@example.com', password: PASSWORD } }))
        .statusCode,
    ).toBe(401);
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'actor_id']).where('entity_id', '=', String(id)).execute();
    expect(audit).toEqual([{ action: 'user.email.change', actor_id: id }]);
  });

  it('refuses a wrong password, the same address, a taken one (also when it was taken before the confirmation), and garbage tokens', async () => {
    await seedUser(t, 'Picky', { password: PASSWORD });
    await seedUser(t, 'Owner', { password: PASSWORD });
    const session = await loginAs(t, 'Picky', PASSWORD);
    const wrong = await request(session, { email: 'picky2@example.com', password: 'not-my-password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ field: 'password', code: 'wrong_password', error: 'Пароль указан неверно' });
    const same = await request(session, { email: 'PICKY@example.com', password: PASSWORD });
    expect(same.json()).toMatchObject({ field: 'email', code: 'same_email' });
    const taken = await request(session, { email: 'Owner@Example.com', password: PASSWORD });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ field: 'email', code: 'email_exists', error: 'Пользователь с такой почтой уже зарегистрирован.' });
    expect((await request(session, { email: 'not an address', password: PASSWORD })).statusCode).toBe(400);

    // Someone registers the address between the request and the confirmation.
    const { confirm: token } = await requestChange(session, 'picky@example.com', 'race@example.com');
    await seedUser(t, 'Race');
    await t.handle.db
      .updateTable('users')
      .set({ email: 'race@example.com', email_lower: 'race@example.com' })
      .where('username', '=', 'Race')
      .execute();
    const late = await confirm(token);
    expect(late.statusCode).toBe(409);
    expect(errorOf(late)).toBe('Пользователь с такой почтой уже зарегистрирован.');

    for (const bad of ['x'.repeat(43), 'short', '%00%00%00%00%00%00%00%00%00%00']) {
      expect((await confirm(bad)).statusCode).toBe(400);
      expect((await cancel(bad)).statusCode).toBe(400);
    }
    expect((await request('', { email: 'a@b.ru', password: PASSWORD })).statusCode).toBe(401);
  });

  it('refuses a made-up, altered or cross-kind link by its signature, before anything is counted or the database asked', async () => {
    await seedUser(t, 'Signer', { password: PASSWORD });
    const session = await loginAs(t, 'Signer', PASSWORD);
    const links = await requestChange(session, 'signer@example.com', 'signer.new@example.org');
    for (const token of [links.confirm, links.cancel]) expect(token).toMatch(/^[\w-]{32}\.[\w-]{22}$/);
    const key = await EmailLinkKey.load(t.handle.db);
    const altered = (token: string) => token.slice(0, -1) + (token.at(-1) === 'A' ? 'B' : 'A');
    const CONFIRM_BAD = { error: 'Ссылка подтверждения недействительна или устарела', code: 'email_link_invalid' };
    const CANCEL_BAD = { error: 'Ссылка отмены недействительна или устарела', code: 'email_link_invalid' };
    // Every way into the database, counted when the e-mail change feature or the users core takes
    // it (the mail and jobs workers go on in the background meanwhile).
    const touches = countTouches(t.handle.db, /modules\/(email-change|users)\//);
    try {
      for (const bad of [altered(links.confirm), 'x'.repeat(43), links.cancel, key.issue('reset')]) {
        const res = await confirm(bad);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json()).toEqual(CONFIRM_BAD);
      }
      for (const bad of [altered(links.cancel), 'x'.repeat(43), links.confirm, key.issue('verify')]) {
        const res = await cancel(bad);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json()).toEqual(CANCEL_BAD);
      }
      expect(touches.count).toBe(0);
      // A genuine signature the database does not know (the control: this one is looked up).
      expect((await confirm(key.issue('email-confirm'))).json()).toEqual(CONFIRM_BAD);
      expect(touches.count).toBeGreaterThan(0);
    } finally {
      touches.restore();
    }
    // Forged links from one address do not count against it: the real one still works.
    for (let i = 0; i < 20; i++) await confirm(altered(links.confirm));
    const ok = await confirm(links.confirm);
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('the confirmation link expires (fake time); a newer request replaces the older one', async () => {
    const id = await seedUser(t, 'Slow', { password: PASSWORD });
    const session = await loginAs(t, 'Slow', PASSWORD);
    const first = await requestChange(session, 'slow@example.com', 'slow-one@example.com');
    const second = await requestChange(session, 'slow@example.com', 'slow-two@example.com');
    expect((await confirm(first.confirm)).statusCode).toBe(400);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + CONFIRM_TTL_MS + 1000);
    expect((await confirm(second.confirm)).statusCode).toBe(400);
    vi.useRealTimers();
    expect(await emailOf(id)).toBe('slow@example.com');
    // Withdrawn from the settings: nothing pending.
    const third = await requestChange(session, 'slow@example.com', 'slow-three@example.com');
    expect((await t.app.inject(asUser(session, { method: 'DELETE', url: '/api/user/email/pending' }))).statusCode).toBe(200);
    expect((await confirm(third.confirm)).statusCode).toBe(400);
    expect((await t.app.inject(asUser(session, { method: 'DELETE', url: '/api/user/email/pending' }))).json().code).toBe(
      'no_pending_change',
    );
  });

  it('the old address cancels a pending change or undoes a done one, once, and ends every session and game login', async () => {
    const id = await seedUser(t, 'Victim', { password: PASSWORD });
    const stolen = await loginAs(t, 'Victim', PASSWORD);
    const own = await loginAs(t, 'Victim', PASSWORD);
    // Pending: cancelled, the confirmation no longer works.
    const pending = await requestChange(stolen, 'victim@example.com', 'thief@example.com');
    const undo = await cancel(pending.cancel);
    expect(undo.statusCode, undo.body).toBe(200);
    expect(undo.json().message).toMatch(/^Смена почты отменена/);
    expect((await confirm(pending.confirm)).statusCode).toBe(400);
    expect(await emailOf(id)).toBe('victim@example.com');
    expect((await t.app.inject(asUser(stolen, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);
    expect((await t.app.inject(asUser(own, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);

    // Done: the thief confirmed; the owner's cancel link brings the address back.
    const thief = await loginAs(t, 'Victim', PASSWORD);
    const done = await requestChange(thief, 'victim@example.com', 'thief2@example.com');
    expect((await confirm(done.confirm)).statusCode).toBe(200);
    expect(await emailOf(id)).toBe('thief2@example.com');
    await t.handle.db
      .insertInto('game_tokens')
      .values({
        access_hash: 'a'.repeat(64),
        refresh_hash: null,
        kind: 'yggdrasil',
        user_id: id,
        client_token: null,
        profile_name: 'Victim',
        created_at: Date.now(),
        expires_at: Date.now() + 1e6,
        refresh_until: Date.now() + 1e6,
      })
      .execute();
    const back = await cancel(done.cancel);
    expect(back.statusCode, back.body).toBe(200);
    expect(await emailOf(id)).toBe('victim@example.com');
    expect((await t.app.inject(asUser(thief, { method: 'GET', url: '/api/user/me' }))).statusCode).toBe(401);
    expect(await t.handle.db.selectFrom('game_tokens').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
    // Once.
    expect((await cancel(done.cancel)).json().code).toBe('email_link_invalid');
    const actions = (
      await t.handle.db.selectFrom('audit_log').select('action').where('entity_id', '=', String(id)).orderBy('id').execute()
    ).map((r) => r.action);
    expect(actions).toEqual(['user.email.change', 'user.email.revert']);

    // The cancel link ends after its days.
    const session = await loginAs(t, 'Victim', PASSWORD);
    const late = await requestChange(session, 'victim@example.com', 'later@example.com');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + CANCEL_TTL_MS + 1000);
    expect((await cancel(late.cancel)).statusCode).toBe(400);
  });
});
