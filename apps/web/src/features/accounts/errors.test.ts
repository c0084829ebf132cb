import { describe, expect, it } from 'vitest';
import { placeServerError } from '../../components/form/server-errors.ts';
import { ApiError } from '../../lib/api.ts';
import { accountError, LOGIN_ERRORS, mailLinkErrors, REGISTRATION_ERRORS, RESET_ERRORS } from './errors.ts';

const registerForm = (name: string) => ['username', 'email', 'password'].includes(name);
const loginForm = (name: string) => ['username', 'password', 'code'].includes(name);

describe('registration errors (spec §8)', () => {
  it('a taken name or address: the Russian notice beside its field', () => {
    const name = new ApiError(409, 'Username already exists', 'username_exists', 'username');
    expect(placeServerError(name, registerForm, REGISTRATION_ERRORS)).toEqual({
      field: 'username',
      message: 'Пользователь с таким именем уже существует.',
    });
    const email = new ApiError(409, 'Email already exists', 'email_exists');
    expect(placeServerError(email, registerForm, REGISTRATION_ERRORS)).toEqual({
      field: 'email',
      message: 'Пользователь с такой почтой уже зарегистрирован.',
    });
  });

  it("a refused password beside the field, in the server's words", () => {
    const weak = new ApiError(400, 'Пароль слишком простой', 'weak_password', 'password');
    expect(placeServerError(weak, registerForm, REGISTRATION_ERRORS)).toEqual({ field: 'password', message: 'Пароль слишком простой' });
  });

  it('anything else above the button: «Ошибка регистрации: …», or «… Попробуйте позже.» without a text', () => {
    const slow = new ApiError(429, 'Слишком много попыток. Попробуйте позже.', 'rate_limited');
    expect(placeServerError(slow, registerForm, REGISTRATION_ERRORS)).toEqual({
      message: 'Ошибка регистрации: Слишком много попыток. Попробуйте позже.',
    });
    expect(placeServerError(new ApiError(500, ''), registerForm, REGISTRATION_ERRORS)).toEqual({
      message: 'Ошибка регистрации. Попробуйте позже.',
    });
  });

  it('the admin user form gets the same notices, on the field', () => {
    const e = accountError(new ApiError(409, 'Email already exists', 'email_exists'));
    expect([e.message, e.field, e.code]).toEqual(['Пользователь с такой почтой уже зарегистрирован.', 'email', 'email_exists']);
    const other = new ApiError(400, 'Баланс не может быть отрицательным', 'invalid', 'balance');
    expect(accountError(other)).toBe(other);
  });
});

describe('login errors (spec §8)', () => {
  it('wrong name or password, and any failure without its own words: one text above the button', () => {
    const wrong = new ApiError(401, 'Неверное имя пользователя или пароль', 'bad_credentials');
    expect(placeServerError(wrong, loginForm, LOGIN_ERRORS)).toEqual({ message: 'Неверное имя пользователя или пароль' });
    expect(placeServerError(new ApiError(0, 'Нет связи с сервером.'), loginForm, LOGIN_ERRORS)).toEqual({
      message: 'Неверное имя пользователя или пароль',
    });
  });

  it("a ban (403) and too many tries (429) in the server's words", () => {
    const banned = new ApiError(403, 'Аккаунт заблокирован навсегда: Гриф спавна', 'banned');
    expect(placeServerError(banned, loginForm, LOGIN_ERRORS)).toEqual({ message: 'Аккаунт заблокирован навсегда: Гриф спавна' });
    const slow = new ApiError(429, 'Слишком много попыток входа. Попробуйте через 15 минут.', 'rate_limited');
    expect(placeServerError(slow, loginForm, LOGIN_ERRORS)).toEqual({ message: 'Слишком много попыток входа. Попробуйте через 15 минут.' });
  });

  it('a wrong two-factor code beside the code field', () => {
    const bad = new ApiError(401, 'Неверный код. Проверьте время на телефоне.', 'bad_two_factor_code', 'code');
    expect(placeServerError(bad, loginForm, LOGIN_ERRORS)).toEqual({
      field: 'code',
      message: 'Неверный код. Проверьте время на телефоне.',
    });
  });
});

describe('password letters and reset', () => {
  it("forgot password: too many tries in the server's words, anything else the spec's text", () => {
    const rules = mailLinkErrors('Не удалось отправить ссылку для сброса пароля');
    const slow = new ApiError(429, 'Слишком много запросов. Попробуйте позже.', 'rate_limited');
    expect(placeServerError(slow, (n) => n === 'email', rules)).toEqual({ message: 'Слишком много запросов. Попробуйте позже.' });
    expect(placeServerError(new ApiError(500, 'Внутренняя ошибка', 'internal'), (n) => n === 'email', rules)).toEqual({
      message: 'Не удалось отправить ссылку для сброса пароля',
    });
  });

  it('reset: a weak password beside the field; an expired link above the button, with its reason', () => {
    const form = (n: string) => n === 'new_password';
    const weak = new ApiError(400, 'Пароль слишком простой', 'weak_password', 'new_password');
    expect(placeServerError(weak, form, RESET_ERRORS)).toEqual({ field: 'new_password', message: 'Пароль слишком простой' });
    const expired = new ApiError(400, 'Ссылка для сброса пароля недействительна или устарела', 'reset_link_invalid');
    expect(placeServerError(expired, form, RESET_ERRORS)).toEqual({
      message: 'Не удалось сбросить пароль: Ссылка для сброса пароля недействительна или устарела',
    });
    expect(placeServerError(new ApiError(0, 'Нет связи с сервером.'), form, RESET_ERRORS)).toEqual({
      message: 'Не удалось сбросить пароль',
    });
  });
});
