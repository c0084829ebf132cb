import sharp from 'sharp';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animated, multipart, pngBomb } from '../../../../../testing/skin-images.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 30, g: 160, b: 60, alpha: 1 } } });
const fileForm = (data: Buffer, filename = 'screen.png', type = 'image/png') => multipart([{ name: 'file', filename, type, data }]);

/** A JPEG whose start-of-frame claims other dimensions: refused by its header before any decoding. */
function jpegClaiming(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let o = 2; o < out.length;) {
    const marker = out[o + 1]!;
    const length = out.readUInt16BE(o + 2);
    if (marker >= 0xc0 && marker <= 0xc2) {
      out.writeUInt16BE(height, o + 5);
      out.writeUInt16BE(width, o + 7);
      return out;
    }
    o += 2 + length;
  }
  throw new Error('no SOF');
}

describe.each(dbKinds)('support tickets on %s', (kind) => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let category: number;

  const call = (who: string | null, method: InjectOptions['method'], url: string, payload?: unknown) =>
    t.app.inject(asUser(who ? tokens[who]! : null, { method, url, ...(payload !== undefined && { payload: payload as object }) }));
  const upload = (who: string, form: { payload: Buffer; headers: Record<string, string> }) =>
    t.app.inject(asUser(tokens[who]!, { method: 'POST', url: '/api/support/attachments', payload: form.payload, headers: form.headers }));
  const newTicket = async (who: string, extra: Record<string, unknown> = {}) => {
    const res = await call(who, 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Не пришёл алмаз',
      message: 'Купил вчера, в игре нет',
      fields: { server: 'Выживание', rules: true },
      ...extra,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: number }>().id;
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false });
    for (const [name, admin] of [
      ['Owner', true],
      ['Alice', false],
      ['Bob', false],
      ['Carol', false],
      ['Helper', false],
      ['Editor', false],
    ] as const) {
      ids[name] = await seedUser(t, name, { admin });
      tokens[name] = await loginAs(t, name);
    }
    // Helper answers tickets; Editor writes news and may not see them.
    for (const [who, permissions] of [
      ['Helper', ['support']],
      ['Editor', ['news']],
    ] as const) {
      const role = await call('Owner', 'POST', '/api/admin/roles', { name: `Роль ${who}`, permissions });
      expect(role.statusCode, role.body).toBe(200);
      const set = await call('Owner', 'PUT', `/api/admin/users/${ids[who]}/role`, { role_id: role.json<{ id: number }>().id });
      expect(set.statusCode, set.body).toBe(200);
    }
    const created = await call('Owner', 'POST', '/api/admin/support/categories', { name: 'Покупки', description: 'Не пришла покупка' });
    expect(created.statusCode, created.body).toBe(201);
    category = created.json<{ id: number }>().id;
    const fields = await call('Owner', 'PUT', `/api/admin/support/categories/${category}`, {
      name: 'Покупки',
      description: 'Не пришла покупка',
      icon: '💳',
      fields: [
        { label: 'Сервер', type: 'select', required: true, options: ['Выживание', 'Мини-игры'], key: 'server' },
        { label: 'Ник в игре', type: 'text' },
        { label: 'С правилами согласен', type: 'checkbox', required: true, key: 'rules' },
      ],
    });
    expect(fields.statusCode, fields.body).toBe(200);
    expect(fields.json().fields.map((f: { key: string }) => f.key)).toEqual(['server', 'f1', 'rules']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('makes a ticket in an owner’s category, checking its fields, and shows it to its author', async () => {
    const categories = await call('Alice', 'GET', '/api/support/categories');
    expect(categories.json()).toMatchObject([{ id: category, name: 'Покупки', icon: '💳' }]);

    const missing = await call('Alice', 'POST', '/api/support/tickets', { category_id: category, subject: 'Тема', message: 'Текст' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'Заполните поле «Сервер»', field: 'fields.server' });
    const badChoice = await call('Alice', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Тема',
      message: 'Текст',
      fields: { server: 'Лобби', rules: true },
    });
    expect(badChoice.json()).toMatchObject({ field: 'fields.server', error: '«Сервер»: выберите из списка' });
    const stray = await call('Alice', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Тема',
      message: 'Текст',
      fields: { server: 'Выживание', rules: true, is_admin: true },
    });
    expect(stray.json()).toMatchObject({ field: 'fields.is_admin' });
    const unticked = await call('Alice', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Тема',
      message: 'Текст',
      fields: { server: 'Выживание', rules: false },
    });
    expect(unticked.json()).toMatchObject({ field: 'fields.rules', error: 'Отметьте «С правилами согласен»' });
    const noCategory = await call('Alice', 'POST', '/api/support/tickets', { category_id: 999_999, subject: 'Тема', message: 'Текст' });
    expect(noCategory.json()).toMatchObject({ code: 'support_category_not_found', field: 'category_id' });
    expect(await t.handle.db.selectFrom('support_tickets').select('id').execute()).toEqual([]);

    const script = '<script>alert(1)</script> <b>жирный</b>';
    const id = await newTicket('Alice', { message: script, fields: { server: 'Выживание', f1: 'Alice_2010', rules: true } });
    const read = await call('Alice', 'GET', `/api/support/tickets/${id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      id,
      kind: 'question',
      subject: 'Не пришёл алмаз',
      state: 'open',
      category: { id: category, name: 'Покупки', icon: '💳' },
      fields: [
        { label: 'Сервер', value: 'Выживание' },
        { label: 'Ник в игре', value: 'Alice_2010' },
        { label: 'С правилами согласен', value: 'да' },
      ],
      // Kept as written: the page shows it as text.
      messages: [{ text: script, staff: false, author: 'Alice', internal: false }],
    });
    const list = await call('Alice', 'GET', '/api/support/tickets');
    expect(list.json()).toMatchObject({ items: [{ id, state: 'open' }], page: 1, pages: 1, total: 1 });
    expect((await call('Bob', 'GET', '/api/support/tickets')).json()).toMatchObject({ items: [], total: 0 });
  });

  it('links a ticket only to the player’s own order, delivery or top-up', async () => {
    const now = Date.now();
    const item = await t.handle.db
      .insertInto('shop_items')
      .values({
        name: 'Алмаз',
        description: '',
        icon: '/i.png',
        category: 'Предметы',
        item_id_minecraft: 'diamond',
        status: 'Продаётся',
        price: 1000,
        count: 10,
        server_id: null,
        commands: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
        sale_price: null,
        sale_ends_at: null,
        limit_per_player: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const order = async (userId: number) =>
      (
        await t.handle.db
          .insertInto('shop_orders')
          .values({
            user_id: userId,
            item_id: item.id,
            item_name: 'Алмаз',
            item_id_minecraft: 'diamond',
            price: 1000,
            quantity: 2,
            total: 2000,
            created_at: Date.now(),
            paid_by: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const mine = await order(ids.Carol!);
    const theirs = await order(ids.Bob!);
    const choices = await call('Carol', 'GET', '/api/support/links');
    expect(choices.json().items).toEqual([
      { kind: 'order', id: String(mine), label: expect.stringMatching(/^Покупка №\d+: Алмаз × 2, 20\u00a0₽/) },
    ]);
    const refused = await call('Carol', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Чужой заказ',
      message: 'Текст',
      fields: { server: 'Выживание', rules: true },
      link: { kind: 'order', id: String(theirs) },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'support_link_not_found', field: 'link' });
    for (const link of [
      { kind: 'payment', id: '00000000-0000-4000-8000-000000000001' },
      { kind: 'delivery', id: '1' },
    ])
      expect(
        (
          await call('Carol', 'POST', '/api/support/tickets', {
            category_id: category,
            subject: 'x',
            message: 'x',
            fields: { server: 'Выживание', rules: true },
            link,
          })
        ).json(),
      ).toMatchObject({ code: 'support_link_not_found' });
    const id = await newTicket('Carol', { link: { kind: 'order', id: String(mine) } });
    expect((await call('Carol', 'GET', `/api/support/tickets/${id}`)).json().link).toMatchObject({ kind: 'order', id: String(mine) });
    await call('Carol', 'POST', `/api/support/tickets/${id}/close`);
  });

  it('moves through its states: a staff answer waits for the player, a reply opens it again; notes stay with staff', async () => {
    const id = await newTicket('Alice');
    const answer = await call('Helper', 'POST', `/api/admin/support/tickets/${id}/messages`, { message: 'Проверим выдачу' });
    expect(answer.statusCode, answer.body).toBe(200);
    // The first answer makes its writer responsible for the ticket.
    expect(answer.json()).toMatchObject({ state: 'waiting', last_author: 'staff', assignee: { id: ids.Helper, username: 'Helper' } });
    const note = await call('Helper', 'POST', `/api/admin/support/tickets/${id}/messages`, {
      message: 'Игрок уже писал в ВК',
      internal: true,
    });
    expect(note.json().state).toBe('waiting');
    expect(note.json().messages.map((m: { internal: boolean }) => m.internal)).toEqual([false, false, true]);

    // The player was told: the bell (live) and a letter; nothing about the note.
    const notices = await t.handle.db
      .selectFrom('notices')
      .selectAll()
      .where('user_id', '=', ids.Alice!)
      .where('kind', '=', 'support')
      .execute();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ title: `Ответ на обращение №${id}`, link: `/support/${id}` });
    expect(notices[0]!.body).toContain('Проверим выдачу');
    const letters = await t.handle.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', 'alice@example.com').execute();
    expect(letters).toHaveLength(1);
    expect(letters[0]!.subject).toContain(`Ответ на обращение №${id}`);
    expect(letters[0]!.text_body).not.toContain('ВК');

    for (const who of ['Alice', 'Helper'] as const) {
      const seen = await call(who, 'GET', `/api/support/tickets/${id}`);
      expect(seen.statusCode).toBe(200);
      expect(seen.body).not.toContain('Игрок уже писал в ВК');
      expect(seen.json().messages).toHaveLength(2);
    }

    const reply = await call('Alice', 'POST', `/api/support/tickets/${id}/messages`, { message: 'Спасибо, жду' });
    expect(reply.json()).toMatchObject({ state: 'open', last_author: 'player' });
    // The assignee hears of it.
    const told = await t.handle.db.selectFrom('notices').select('title').where('user_id', '=', ids.Helper!).execute();
    expect(told.map((n) => n.title)).toContain(`Игрок ответил в обращении №${id}`);

    const closing = await call('Helper', 'POST', `/api/admin/support/tickets/${id}/messages`, {
      message: 'Выдали, проверьте',
      close: true,
    });
    expect(closing.json()).toMatchObject({ state: 'closed' });
    expect(closing.json().closed_at).toEqual(expect.any(Number));
    const late = await call('Alice', 'POST', `/api/support/tickets/${id}/messages`, { message: 'Ещё вопрос' });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'ticket_closed' });
    expect((await call('Helper', 'POST', `/api/admin/support/tickets/${id}/messages`, { message: 'x' })).statusCode).toBe(409);
    // A second letter within ten minutes is not sent: the bell says it.
    expect(await t.handle.db.selectFrom('mail_outbox').select('id').where('to_address', '=', 'alice@example.com').execute()).toHaveLength(
      1,
    );

    const reopened = await call('Owner', 'POST', `/api/admin/support/tickets/${id}/reopen`);
    expect(reopened.json()).toMatchObject({ state: 'waiting', closed_at: null });
    expect((await call('Owner', 'POST', `/api/admin/support/tickets/${id}/reopen`)).statusCode).toBe(409);
    const own = await call('Alice', 'POST', `/api/support/tickets/${id}/close`);
    expect(own.json().state).toBe('closed');
    expect((await call('Alice', 'POST', `/api/support/tickets/${id}/close`)).statusCode).toBe(409);
  });

  it('assigns only staff who hold the permission, and tells them', async () => {
    const id = await newTicket('Bob');
    const staff = await call('Owner', 'GET', '/api/admin/support/staff');
    expect(staff.json().staff.map((s: { username: string }) => s.username)).toEqual(['Helper', 'Owner']);
    for (const who of ['Editor', 'Bob'])
      expect((await call('Owner', 'PUT', `/api/admin/support/tickets/${id}/assignee`, { assignee_id: ids[who] })).json()).toMatchObject({
        code: 'not_support_staff',
        field: 'assignee_id',
      });
    const given = await call('Owner', 'PUT', `/api/admin/support/tickets/${id}/assignee`, { assignee_id: ids.Helper });
    expect(given.json().assignee).toEqual({ id: ids.Helper, username: 'Helper' });
    const notice = await t.handle.db
      .selectFrom('notices')
      .select(['title', 'link'])
      .where('user_id', '=', ids.Helper!)
      .where('title', '=', `Вам назначено обращение №${id}`)
      .executeTakeFirst();
    expect(notice?.link).toBe(`/admin/support?ticket=${id}`);
    const mine = await call('Helper', 'GET', '/api/admin/support/tickets?assignee=me&state=active');
    expect(mine.json().items.map((i: { id: number }) => i.id)).toContain(id);
    const unassigned = await call('Helper', 'GET', '/api/admin/support/tickets?assignee=none');
    expect(unassigned.json().items.map((i: { id: number }) => i.id)).not.toContain(id);
    const byName = await call('Helper', 'GET', '/api/admin/support/tickets?q=bo');
    expect(byName.json().items.every((i: { player: { username: string } }) => i.player.username === 'Bob')).toBe(true);
    expect((await call('Owner', 'PUT', `/api/admin/support/tickets/${id}/assignee`, { assignee_id: null })).json().assignee).toBeNull();
    await call('Bob', 'POST', `/api/support/tickets/${id}/close`);
  });

  it('never shows a ticket, its replies or its pictures to another player, on any route', async () => {
    const id = await newTicket('Alice', { subject: 'Секретная тема' });
    const png = await solid(20, 10).png().toBuffer();
    const pic = (await upload('Alice', fileForm(png))).json<{ id: number }>().id;
    await call('Alice', 'POST', `/api/support/tickets/${id}/messages`, { message: 'Снимок', attachment_ids: [pic] });
    const routes = t.app.apiRoutes.filter((r) => r.url.startsWith('/api/support/') && r.url.includes(':id'));
    expect(routes.length).toBeGreaterThanOrEqual(4);
    for (const route of routes) {
      const url = route.url.replace(':id', String(route.url.includes('attachments') ? pic : id));
      const payload = route.method === 'GET' ? undefined : { message: 'Чужое', attachment_ids: [] };
      for (const who of ['Bob', 'Editor'] as const) {
        const res = await call(who, route.method as InjectOptions['method'], url, payload);
        expect(res.statusCode, `${who} ${route.method} ${route.url}`).toBe(404);
        expect(res.body).not.toContain('Секретная');
      }
      expect((await call(null, route.method as InjectOptions['method'], url, payload)).statusCode).toBe(401);
    }
    const ticket = await call('Alice', 'GET', `/api/support/tickets/${id}`);
    expect(ticket.json().messages).toHaveLength(2);
    expect(ticket.json().state).toBe('open');
    // Staff routes answer nobody without the permission.
    for (const route of t.app.apiRoutes.filter((r) => r.url.startsWith('/api/admin/support'))) {
      const url = route.url.replace(':id', String(id));
      const payload = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      for (const who of ['Alice', 'Editor'] as const)
        expect(
          (await call(who, route.method as InjectOptions['method'], url, payload)).statusCode,
          `${who} ${route.method} ${route.url}`,
        ).toBe(403);
    }
    await call('Alice', 'POST', `/api/support/tickets/${id}/close`);
  });

  it('takes pictures checked and encoded afresh, served only to those who may read the ticket', async () => {
    const id = await newTicket('Bob');
    // EXIF with a position, on a JPEG: the stored file keeps none of it.
    const jpeg = await solid(40, 30)
      .jpeg()
      .withExif({ IFD0: { Copyright: 'secret place' } })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const up = await upload('Bob', fileForm(jpeg, 'C:\\Users\\bob\\снимок.jpg', 'image/jpeg'));
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json()).toMatchObject({ name: 'снимок.jpg', width: 40, height: 30 });
    const picId = up.json<{ id: number; url: string }>().id;
    // Not sent yet: its uploader's alone.
    expect((await call('Helper', 'GET', `/api/support/attachments/${picId}`)).statusCode).toBe(404);
    // Another player cannot send it: the new ticket is refused whole.
    const stolen = await call('Alice', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Чужая картинка',
      message: 'x',
      fields: { server: 'Выживание', rules: true },
      attachment_ids: [picId],
    });
    expect(stolen.json()).toMatchObject({ code: 'attachment_not_found', field: 'attachment_ids' });
    expect(await t.handle.db.selectFrom('support_tickets').select('id').where('subject', '=', 'Чужая картинка').execute()).toEqual([]);
    await call('Bob', 'POST', `/api/support/tickets/${id}/messages`, { message: 'Вот снимок', attachment_ids: [picId] });
    const file = await call('Bob', 'GET', `/api/support/attachments/${picId}`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    expect(file.headers['cache-control']).toContain('private');
    expect((await sharp(file.rawPayload).metadata()).exif).toBeUndefined();
    expect((await call('Helper', 'GET', `/api/support/attachments/${picId}`)).statusCode).toBe(200);
    expect((await call('Alice', 'GET', `/api/support/attachments/${picId}`)).statusCode).toBe(404);
    // A picture sent once cannot be sent again.
    const again = await call('Bob', 'POST', `/api/support/tickets/${id}/messages`, { message: 'Ещё раз', attachment_ids: [picId] });
    expect(again.json()).toMatchObject({ code: 'attachment_not_found', field: 'attachment_ids' });

    // A staff note's picture is staff's only.
    const staffPic = (await upload('Helper', fileForm(await solid(8, 8).webp().toBuffer(), 'n.webp', 'image/webp'))).json<{ id: number }>()
      .id;
    const note = await call('Helper', 'POST', `/api/admin/support/tickets/${id}/messages`, {
      message: 'Заметка',
      internal: true,
      attachment_ids: [staffPic],
    });
    expect(note.statusCode, note.body).toBe(200);
    expect((await call('Bob', 'GET', `/api/support/attachments/${staffPic}`)).statusCode).toBe(404);
    expect((await call('Owner', 'GET', `/api/support/attachments/${staffPic}`)).statusCode).toBe(200);

    const refusals: [string, Buffer, string, number, string][] = [
      ['text', Buffer.from('just words'), 'a.png', 415, 'wrong_type'],
      ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), 'a.png', 415, 'wrong_type'],
      ['gif', await solid(8, 8).gif().toBuffer(), 'a.gif', 415, 'wrong_type'],
      ['animated png', animated(await solid(8, 8).png().toBuffer()), 'a.png', 400, 'animated_png'],
      ['png bomb', pngBomb(30_000, 30_000), 'a.png', 400, 'image_too_large'],
      ['jpeg bomb', jpegClaiming(await solid(16, 16).jpeg().toBuffer(), 60_000, 60_000), 'a.jpg', 400, 'image_too_large'],
      ['cut off', (await solid(64, 64).png().toBuffer()).subarray(0, 60), 'a.png', 400, 'broken_image'],
      ['too big', Buffer.alloc(5 * 1024 * 1024 + 10, 1), 'a.png', 413, 'file_too_large'],
    ];
    const before = await t.handle.db.selectFrom('support_attachments').select('id').execute();
    for (const [what, data, name, status, code] of refusals) {
      const res = await upload('Carol', fileForm(data, name));
      expect(res.statusCode, what).toBe(status);
      expect(res.json().code, what).toBe(code);
      expect(res.json().error, what).toMatch(/[а-я]/);
    }
    expect(await t.handle.db.selectFrom('support_attachments').select('id').execute()).toEqual(before);
    const json = await t.app.inject(asUser(tokens.Carol!, { method: 'POST', url: '/api/support/attachments', payload: { file: 'x' } }));
    expect(json.statusCode).toBe(415);
    await call('Bob', 'POST', `/api/support/tickets/${id}/close`);
  });

  it('caps open tickets per player and limits how fast they are written', async () => {
    const dave = await seedUser(t, 'Dave');
    tokens.Dave = await loginAs(t, 'Dave');
    const made = [await newTicket('Dave'), await newTicket('Dave'), await newTicket('Dave')];
    const fourth = await call('Dave', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Четвёртое',
      message: 'x',
      fields: { server: 'Выживание', rules: true },
    });
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json()).toMatchObject({ code: 'too_many_open_tickets' });
    await call('Dave', 'POST', `/api/support/tickets/${made[0]}/close`);
    await newTicket('Dave');
    await call('Dave', 'POST', `/api/support/tickets/${made[1]}/close`);
    // Five tries counted in this window (one refused by the cap): the sixth passes, the seventh is over the rate.
    await newTicket('Dave');
    await call('Dave', 'POST', `/api/support/tickets/${made[2]}/close`);
    const fast = await call('Dave', 'POST', '/api/support/tickets', {
      category_id: category,
      subject: 'Седьмое',
      message: 'x',
      fields: { server: 'Выживание', rules: true },
    });
    expect(fast.statusCode).toBe(429);
    expect(fast.json()).toMatchObject({ code: 'rate_limited' });
    const open = await t.handle.db
      .selectFrom('support_tickets')
      .select('id')
      .where('user_id', '=', dave)
      .where('state', '!=', 'closed')
      .execute();
    expect(open).toHaveLength(2);

    // Replies: 30 a window.
    const id = open[0]!.id;
    let last = 0;
    for (let i = 0; i < 31; i++)
      last = (await call('Dave', 'POST', `/api/support/tickets/${id}/messages`, { message: `Ответ ${i}` })).statusCode;
    expect(last).toBe(429);
  });

  it('holds the cap when tickets are sent at once', async () => {
    await seedUser(t, 'Eve');
    tokens.Eve = await loginAs(t, 'Eve');
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call('Eve', 'POST', '/api/support/tickets', {
          category_id: category,
          subject: `Разом ${i}`,
          message: 'x',
          fields: { server: 'Выживание', rules: true },
        }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(3);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(2);
  });

  it('keeps categories and canned answers for staff, and writes them to the audit log', async () => {
    const canned = await call('Helper', 'POST', '/api/admin/support/canned', {
      title: 'Выдача',
      text: 'Выдача идёт до 5 минут.\nЗайдите на сервер.',
    });
    expect(canned.statusCode).toBe(201);
    const cannedId = canned.json<{ id: number }>().id;
    expect(
      (await call('Helper', 'PUT', `/api/admin/support/canned/${cannedId}`, { title: 'Выдача покупки', text: 'Текст' })).json(),
    ).toEqual({
      id: cannedId,
      title: 'Выдача покупки',
      text: 'Текст',
    });
    expect((await call('Helper', 'GET', '/api/admin/support/canned')).json()).toEqual([
      { id: cannedId, title: 'Выдача покупки', text: 'Текст' },
    ]);
    expect((await call('Helper', 'DELETE', `/api/admin/support/canned/${cannedId}`)).statusCode).toBe(200);
    expect((await call('Helper', 'DELETE', `/api/admin/support/canned/${cannedId}`)).statusCode).toBe(404);

    const refused = await call('Owner', 'POST', '/api/admin/support/categories', {
      name: 'Выбор',
      fields: [{ label: 'Что', type: 'select', options: ['одно'] }],
      icon: 'javascript:alert(1)',
    });
    expect(refused.statusCode).toBe(400);
    const other = await call('Owner', 'POST', '/api/admin/support/categories', { name: 'Прочее', description: '', enabled: false });
    const otherId = other.json<{ id: number }>().id;
    expect((await call('Alice', 'GET', '/api/support/categories')).json().map((c: { id: number }) => c.id)).not.toContain(otherId);
    const disabled = await call('Alice', 'POST', '/api/support/tickets', { category_id: otherId, subject: 'x', message: 'x' });
    expect(disabled.json()).toMatchObject({ code: 'support_category_not_found' });
    expect((await call('Owner', 'DELETE', `/api/admin/support/categories/${otherId}`)).statusCode).toBe(200);
    expect((await call('Owner', 'GET', '/api/admin/support/categories')).json().map((c: { id: number }) => c.id)).toEqual([category]);
    const actions = await t.handle.db.selectFrom('audit_log').select('action').where('action', 'like', 'support.%').orderBy('id').execute();
    expect(actions.map((a) => a.action)).toEqual([
      'support.category.create',
      'support.category.update',
      'support.canned.create',
      'support.canned.update',
      'support.canned.delete',
      'support.category.create',
      'support.category.delete',
    ]);
  });

  it('lets a banned player appeal through the signed link the login refusal carries', async () => {
    const frank = await seedUser(t, 'Frank');
    const banned = await call('Owner', 'POST', `/api/admin/users/${frank}/ban`, {
      reason: 'Читы',
      note: 'Флай-хак на записи',
      until: null,
    });
    expect(banned.statusCode, banned.body).toBe(200);
    const login = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'Frank', password: 'password123' } });
    expect(login.statusCode).toBe(403);
    const token = login.json().ban.appeal_token as string;
    expect(token).toMatch(/^[0-9a-z.]+\.[A-Za-z0-9_-]{22}$/);
    // A wrong password gets no link.
    const wrong = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'Frank', password: 'nope-nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('appeal_token');

    const appeal = (method: 'GET' | 'POST', url: string, link: string, payload?: unknown) =>
      t.app.inject({ method, url, headers: { 'x-appeal-token': link }, ...(payload !== undefined && { payload: payload as object }) });
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [forged, 'x'.repeat(40), token.replace(/^[0-9a-z]+/, (id) => (parseInt(id, 36) + 1).toString(36))]) {
      const res = await appeal('POST', '/api/support/appeal', bad, { message: 'Я не читер' });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({ code: 'appeal_link_invalid' });
    }
    const view = await appeal('GET', '/api/support/appeal', token);
    expect(view.json()).toMatchObject({ username: 'Frank', ban: { reason: 'Читы', until: null }, ticket: null });
    // The ban's internal note is staff's with the bans permission: never on the appeal's pages.
    expect(view.body).not.toContain('Флай-хак');
    const made = await appeal('POST', '/api/support/appeal', token, { message: 'Я не читер, это лаг' });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json<{ id: number }>().id;
    const twice = await appeal('POST', '/api/support/appeal', token, { message: 'Ещё раз' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ code: 'appeal_exists', id });

    const staffView = await call('Helper', 'GET', `/api/admin/support/tickets/${id}`);
    expect(staffView.json()).toMatchObject({ kind: 'appeal', player: { username: 'Frank' }, ban: { reason: 'Читы', lifted: false } });
    // Helper answers tickets but does not hold `bans`: the note stays out of the ticket too.
    expect(staffView.body).not.toContain('Флай-хак');
    const appeals = await call('Helper', 'GET', '/api/admin/support/tickets?kind=appeal');
    expect(appeals.json().items.map((i: { id: number }) => i.id)).toEqual([id]);
    await call('Helper', 'POST', `/api/admin/support/tickets/${id}/messages`, { message: 'Пришлите запись игры' });
    // The letter carries a fresh appeal link: the player cannot see the bell while banned.
    const letter = await t.handle.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('to_address', '=', 'frank@example.com')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(letter.link).toMatch(/^http:\/\/kubik\.test\/support\/appeal#[0-9a-z.]+\.[A-Za-z0-9_-]{22}$/);
    const fresh = letter.link!.split('#')[1]!;
    const replied = await appeal('POST', '/api/support/appeal/messages', fresh, { message: 'Вот запись' });
    expect(replied.json()).toMatchObject({
      state: 'open',
      messages: [{ text: 'Я не читер, это лаг' }, { text: 'Пришлите запись игры' }, { text: 'Вот запись' }],
    });

    // Lifted: the link no longer works, and the player reads the appeal in their own list.
    await call('Owner', 'DELETE', `/api/admin/users/${frank}/ban`);
    expect((await appeal('GET', '/api/support/appeal', token)).json()).toMatchObject({ code: 'appeal_ban_over' });
    tokens.Frank = await loginAs(t, 'Frank');
    expect((await call('Frank', 'GET', '/api/support/tickets')).json().items).toMatchObject([{ id, kind: 'appeal' }]);
    expect((await call('Helper', 'GET', `/api/admin/support/tickets/${id}`)).json().ban.lifted).toBe(true);
  });
});
