import type { SupportCategory } from '@kubik/contract';
import { describe, expect, it } from 'vitest';
import { answersFor, linkRef, newTicketSchema } from './ticket-form.ts';

const category: SupportCategory = {
  id: 7,
  name: 'Покупки',
  description: '',
  icon: null,
  position: 0,
  enabled: true,
  fields: [
    { key: 'server', label: 'Сервер', type: 'select', required: true, options: ['Выживание', 'Мини-игры'] },
    { key: 'order', label: 'Номер заказа', type: 'number', required: false, options: [] },
    { key: 'rules', label: 'С правилами согласен', type: 'checkbox', required: true, options: [] },
  ],
};

describe('the new ticket form', () => {
  it('turns typed answers into what the API takes, leaving out the empty and other categories’ fields', () => {
    expect(answersFor(category, { server: 'Выживание', order: ' 1 250,5 ', rules: true, stale: 'от другой категории' })).toEqual({
      server: 'Выживание',
      order: 1250.5,
      rules: true,
    });
    expect(answersFor(category, { server: '', order: '   ' })).toEqual({ rules: false });
    // Text that is no number goes as typed: the server's words refuse it beside the field.
    expect(answersFor(category, { order: 'двенадцать' })).toMatchObject({ order: 'двенадцать' });
  });

  it('shows the category’s own rules beside its fields, all at once', () => {
    const schema = newTicketSchema([category]);
    const result = schema.safeParse({ category_id: '7', subject: 'Тема', message: 'Текст', link: '', fields: { order: 'x' } });
    expect(result.success).toBe(false);
    const issues = Object.fromEntries(result.error!.issues.map((i) => [i.path.join('.'), i.message]));
    expect(issues).toEqual({
      'fields.server': 'Заполните поле «Сервер»',
      'fields.order': '«Номер заказа»: введите число',
      'fields.rules': 'Отметьте «С правилами согласен»',
    });
    expect(
      schema.safeParse({ category_id: '7', subject: 'Тема', message: 'Текст', link: '', fields: { server: 'Мини-игры', rules: true } })
        .success,
    ).toBe(true);
    expect(schema.safeParse({ category_id: '', subject: ' ', message: '', link: '' }).error!.issues.map((i) => i.path[0])).toEqual([
      'category_id',
      'subject',
      'message',
    ]);
  });

  it('reads the link choice', () => {
    expect(linkRef('')).toBeNull();
    expect(linkRef('order:12')).toEqual({ kind: 'order', id: '12' });
    expect(linkRef('payment:0b3c-4d')).toEqual({ kind: 'payment', id: '0b3c-4d' });
    expect(linkRef('admin:1')).toBeNull();
  });
});
