import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, sendQueuedMail, type TestApp } from '../../test/test-app.ts';

// Issue 24 §6: once the owner renames the site, every letter — its sender's name, subject and
// body — says the new name, not the SITE_NAME default («Kubik»).
describe.each(dbKinds)("letters carry the owner's site name on %s", (kind) => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    await seedUser(t, 'Admin', { admin: true });
    admin = await loginAs(t, 'Admin');
  });
  afterAll(() => t?.close());

  it('uses the renamed site in the e-mail change letters (sender, subject, body)', async () => {
    const renamed = await t.app.inject(asUser(admin, { method: 'PUT', url: '/api/admin/settings', payload: { name: 'Кубач' } }));
    expect(renamed.statusCode, renamed.body).toBe(200);
    await seedUser(t, 'Mover');
    const player = await loginAs(t, 'Mover');
    const res = await t.app.inject(
      asUser(player, { method: 'POST', url: '/api/user/email', payload: { email: 'new-mover@example.com', password: 'password123' } }),
    );
    expect(res.statusCode, res.body).toBe(200);
    await sendQueuedMail(t);
    for (const to of ['new-mover@example.com', 'mover@example.com']) {
      const letter = await t.smtp.waitFor(to);
      expect(letter.from).toMatch(/^"?Кубач"? </);
      expect(letter.subject).toContain('Кубач');
      expect(letter.text).toContain('Кубач');
      expect(`${letter.subject} ${letter.text} ${letter.html} ${letter.from}`).not.toContain('Kubik');
    }
  });
});
