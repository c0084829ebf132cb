import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../lib/mailer.ts';
import { createTestApp, dbKinds, type TestApp } from '../../test/test-app.ts';
import { drainOutbox, enqueueMail, retryDelayMs } from './mail.outbox.ts';

const letter = (to: string) => ({
  to,
  subject: 'Проверка',
  text: 'Текст письма со ссылкой http://kubik.test/x',
  html: '<p>Текст</p>',
  link: 'http://kubik.test/x',
});

describe.each(dbKinds)('mail outbox on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps a letter the SMTP server refused and sends it on a later attempt', async () => {
    const { db } = t.handle;
    await enqueueMail(db, letter('retry@example.com'));
    t.smtp.refuse = true;
    expect(await drainOutbox(db, t.app.ctx.mailer, t.app.log)).toBe(0);
    const failed = await db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'retry@example.com').executeTakeFirstOrThrow();
    expect(failed.sent_at).toBeNull();
    expect(failed.attempts).toBe(1);
    expect(failed.last_error).toBeTruthy();
    expect(failed.next_attempt_at).toBeGreaterThan(Date.now());

    // Not due yet: nothing is sent even though the server is back.
    t.smtp.refuse = false;
    expect(await drainOutbox(db, t.app.ctx.mailer, t.app.log)).toBe(0);

    // Due again (as after a restart an hour later): sent exactly once.
    await db
      .updateTable('mail_outbox')
      .set({ next_attempt_at: Date.now() - 1 })
      .where('id', '=', failed.id)
      .execute();
    const [a, b] = await Promise.all([drainOutbox(db, t.app.ctx.mailer, t.app.log), drainOutbox(db, t.app.ctx.mailer, t.app.log)]);
    expect(a + b).toBe(1);
    expect(t.smtp.letters.filter((l) => l.to.includes('retry@example.com'))).toHaveLength(1);
    const sent = await db.selectFrom('mail_outbox').selectAll().where('id', '=', failed.id).executeTakeFirstOrThrow();
    expect(sent.sent_at).not.toBeNull();
  });

  it('backs off from 30 s up to an hour', () => {
    expect(retryDelayMs(1)).toBe(30_000);
    expect(retryDelayMs(2)).toBe(60_000);
    expect(retryDelayMs(20)).toBe(3_600_000);
  });
});

describe('mail without SMTP', () => {
  it('writes each letter as an .eml file under DATA_DIR/mail', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-mail-'));
    try {
      const mailer = createMailer({ smtpUrl: undefined, mailFrom: 'Kubik <no-reply@kubik.test>', dataDir: dir });
      expect(mailer.kind).toBe('files');
      await mailer.send(letter('file@example.com'));
      const files = readdirSync(path.join(dir, 'mail'));
      expect(files).toHaveLength(1);
      const eml = readFileSync(path.join(dir, 'mail', files[0]!), 'utf8');
      expect(eml).toMatch(/^To: file@example.com$/m);
      expect(eml).toMatch(/Subject: =\?UTF-8\?/);
      mailer.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
