import { parseArgs } from 'node:util';
import { Email, NewPassword, Username } from '@kubik/contract';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { hashPassword } from '../front-door/passwords.ts';
import { profileUuidFor } from '../modules/users/users.repo.ts';

/**
 * npm run admin:create -- --username U --email E --password P
 * Creates a confirmed administrator, or promotes the existing user with that name.
 */
const { values } = parseArgs({
  options: { username: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
});

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const username = Username.safeParse(values.username);
if (!username.success) fail('Укажите --username: от 3 до 16 символов — латинские буквы, цифры и «_»');

const database = openDatabase(loadConfig());
try {
  await migrateToLatest(database);
  const { db } = database;
  const existing = await db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('username_lower', '=', username.data.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (existing) {
    await db.updateTable('users').set({ is_admin: 1 }).where('id', '=', existing.id).execute();
    await db
      .updateTable('users')
      .set({ email_verified_at: Date.now() })
      .where('id', '=', existing.id)
      .where('email_verified_at', 'is', null)
      .execute();
    console.log(`Пользователь ${existing.username} теперь администратор.`);
  } else {
    const email = Email.safeParse(values.email);
    if (!email.success) fail('Укажите --email: корректный адрес почты');
    const password = NewPassword.safeParse(values.password);
    if (!password.success) fail(`Укажите --password: ${password.error.issues[0]?.message ?? 'не короче 8 символов'}`);
    const taken = await db.selectFrom('users').select('id').where('email_lower', '=', email.data.toLowerCase()).executeTakeFirst();
    if (taken) fail('Эта почта уже занята другим пользователем.');
    await db
      .insertInto('users')
      .values({
        username: username.data,
        username_lower: username.data.toLowerCase(),
        email: email.data,
        email_lower: email.data.toLowerCase(),
        password_hash: await hashPassword(password.data),
        is_admin: 1,
        balance: 0,
        email_verified_at: Date.now(),
        created_at: Date.now(),
        deleted_at: null,
        uuid: await profileUuidFor(db, username.data),
      })
      .execute();
    console.log(`Администратор ${username.data} создан.`);
  }
} finally {
  await database.close();
}
