import type { Kysely, Migration } from 'kysely';
import { bigint, notNull } from '../../db/schema-helpers.ts';

// Names 2026112360_…–64_… (owner-site). A landed migration is never edited: add a new one.

/** The texts the site showed before pages could be edited: they become the first pages. */
const RULES = `Играя на сервере, вы соглашаетесь с этими правилами. За нарушения — предупреждение, мут или бан.

## Основные правила

1. Уважайте других игроков и администрацию.
2. Запрещены оскорбления и любая дискриминация.
3. Запрещены спам и флуд в чате.

## Технические правила

1. Запрещены читы и сторонние программы, дающие преимущество.
2. Запрещена продажа аккаунтов и игровых ценностей.
`;

const FAQ = `## Как зарегистрироваться?

Откройте [регистрацию](/register), введите ник, почту и пароль, затем подтвердите почту по ссылке из письма. После этого можно войти на сайте и в лаунчере.

## Я забыл пароль. Что делать?

На странице [входа](/login) нажмите «Забыли пароль?», укажите почту — мы пришлём ссылку для сброса.
`;

const HELP = `## Безопасность аккаунта

- Не сообщайте пароль никому, даже администрации: мы никогда его не спрашиваем.
- Используйте для игры отдельный пароль, не такой, как на почте.
- Скачивайте лаунчер только с этой страницы.
- Если кто-то вошёл в ваш аккаунт — сбросьте пароль через «Забыли пароль?»: все сеансы завершатся.
`;

/** Empty pages are not shown (and not linked) until the owner fills them in. */
const SEED = [
  { slug: 'rules', title: 'Правила', body: RULES, place: 'none', position: 0 },
  { slug: 'help', title: 'Помощь', body: HELP, place: 'none', position: 0 },
  { slug: 'faq', title: 'Частые вопросы', body: FAQ, place: 'none', position: 0 },
  { slug: 'offer', title: 'Публичная оферта', body: '', place: 'footer', position: 10 },
  { slug: 'privacy', title: 'Политика конфиденциальности', body: '', place: 'footer', position: 20 },
  { slug: 'contacts', title: 'Контакты', body: '', place: 'footer', position: 30 },
];

export const pagesMigrations: Record<string, Migration> = {
  '2026112360_pages': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('pages')
        .addColumn('slug', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('title', 'varchar(120)', notNull)
        .addColumn('body', 'text', notNull)
        .addColumn('place', 'varchar(16)', (c) => c.notNull().defaultTo('none'))
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', bigint, notNull)
        .addColumn('updated_by', 'integer')
        .execute();
      const now = Date.now();
      await (db as Kysely<{ pages: Record<string, unknown> }>)
        .insertInto('pages')
        .values(SEED.map((p) => ({ ...p, updated_at: now, updated_by: null })))
        .execute();
    },
  },
};
