import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api.ts';
import { FALLBACK_ERROR, placeServerError } from './server-errors.ts';

const fields =
  (...names: string[]) =>
  (name: string) =>
    names.includes(name);

describe('where a refused submit lands', () => {
  it("on the field the server names, without the field's name repeated in the text", () => {
    const err = new ApiError(400, 'Порт — целое число от 1 до 65535 (поле «Порт»)', 'invalid', 'port');
    expect(placeServerError(err, fields('name', 'port'))).toEqual({ field: 'port', message: 'Порт — целое число от 1 до 65535' });
    const nested = new ApiError(400, 'Введите название кита (поле «Киты → Название»)', 'invalid', 'kits.0.name');
    expect(placeServerError(nested, fields('kits.0.name'))).toEqual({ field: 'kits.0.name', message: 'Введите название кита' });
  });

  it('above the buttons when the form has no such field, with the text as the server wrote it', () => {
    const err = new ApiError(400, 'Некорректный идентификатор (параметр «Идентификатор»)', 'invalid', 'id');
    expect(placeServerError(err, fields('name'))).toEqual({ message: 'Некорректный идентификатор (параметр «Идентификатор»)' });
    expect(placeServerError(new ApiError(409, 'Этот плащ уже выдан', 'already_granted'), fields('username'))).toEqual({
      message: 'Этот плащ уже выдан',
    });
  });

  it("by the code's rule: its field and its text, even when the server named neither", () => {
    const rules = { codes: { username_exists: { field: 'username', text: 'Пользователь с таким именем уже существует.' } } };
    const err = new ApiError(409, 'Username already exists', 'username_exists');
    expect(placeServerError(err, fields('username', 'email'), rules)).toEqual({
      field: 'username',
      message: 'Пользователь с таким именем уже существует.',
    });
    // A form without that field still shows the rule's text, above the buttons.
    expect(placeServerError(err, fields('email'), rules)).toEqual({ message: 'Пользователь с таким именем уже существует.' });
  });

  it('by the code, not by the text: another code with the same words takes no rule', () => {
    const rules = { codes: { username_exists: { field: 'username', text: 'Пользователь с таким именем уже существует.' } } };
    const err = new ApiError(409, 'Username already exists', 'conflict');
    expect(placeServerError(err, fields('username'), rules)).toEqual({ message: 'Username already exists' });
  });

  it("a code listed without a text keeps the server's words where the form's own text would stand", () => {
    const rules = { codes: { rate_limited: {} }, formText: () => 'Не удалось отправить письмо' };
    const slow = new ApiError(429, 'Слишком много попыток. Попробуйте через 5 минут.', 'rate_limited');
    expect(placeServerError(slow, fields('email'), rules)).toEqual({ message: 'Слишком много попыток. Попробуйте через 5 минут.' });
    expect(placeServerError(new ApiError(500, 'Внутренняя ошибка сервера', 'internal'), fields('email'), rules)).toEqual({
      message: 'Не удалось отправить письмо',
    });
  });

  it("the form's text for what lands on no field; a general one when there is neither", () => {
    const rules = { formText: (e: ApiError | null) => (e?.message ? `Ошибка: ${e.message}` : 'Ошибка. Попробуйте позже.') };
    expect(placeServerError(new ApiError(400, 'Так нельзя', 'bad_request'), fields(), rules)).toEqual({ message: 'Ошибка: Так нельзя' });
    expect(placeServerError(new ApiError(502, ''), fields(), rules)).toEqual({ message: 'Ошибка. Попробуйте позже.' });
    expect(placeServerError(new TypeError('x is undefined'), fields(), rules)).toEqual({ message: 'Ошибка. Попробуйте позже.' });
    expect(placeServerError(new TypeError('x is undefined'), fields())).toEqual({ message: FALLBACK_ERROR });
    expect(placeServerError(new ApiError(500, ''), fields())).toEqual({ message: FALLBACK_ERROR });
  });

  it('a field error the server sent without words still says something', () => {
    expect(placeServerError(new ApiError(400, '', 'invalid', 'email'), fields('email'))).toEqual({
      field: 'email',
      message: FALLBACK_ERROR,
    });
  });
});
