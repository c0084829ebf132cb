import { describe, expect, it } from 'vitest';
import { BanForm, banBodyOf } from './ban-form.ts';

const issues = (values: object) => {
  const r = BanForm.safeParse(values);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
};

describe('the ban form', () => {
  it('needs the internal note, not the public reason', () => {
    expect(issues({ reason: '', note: 'Читы, видео в тикете', term: '7', date: '' })).toEqual({});
    expect(issues({ reason: 'Читы', note: '  ', term: '7', date: '' })).toEqual({
      note: 'Укажите внутреннюю заметку: за что блокировка (её видит только персонал)',
    });
  });

  it('refuses too long or multi-line texts beside their own field', () => {
    expect(Object.keys(issues({ reason: 'я'.repeat(201), note: 'x', term: '7', date: '' }))).toEqual(['reason']);
    expect(Object.keys(issues({ reason: 'x', note: 'a\nb', term: '7', date: '' }))).toEqual(['note']);
    expect(issues({ reason: 'x', note: 'x', term: 'date', date: '2001-01-01T10:00' })).toEqual({
      date: 'Дата окончания должна быть в будущем',
    });
  });

  it('sends the two texts apart, trimmed, with the end', () => {
    const now = Date.UTC(2026, 11, 1, 12);
    const v = BanForm.parse({ reason: '  Гриф спавна ', note: ' Жалоба модератора ', term: '7', date: '' });
    expect(banBodyOf(v, now)).toEqual({ reason: 'Гриф спавна', note: 'Жалоба модератора', until: now + 7 * 86_400_000 });
    expect(banBodyOf(BanForm.parse({ reason: '', note: 'n', term: 'forever', date: '' }), now)).toEqual({
      reason: '',
      note: 'n',
      until: null,
    });
  });
});
