import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { useTitle } from '../../providers/title.ts';
import { register } from './api.ts';
import { registrationError } from './errors.ts';

export default function RegisterPage() {
  useTitle('Регистрация');
  const [, navigate] = useLocation();
  const notify = useNotify();
  const [form, setForm] = useState({ username: '', email: '', password: '' });
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      await register({ username: form.username.trim(), email: form.email.trim(), password: form.password });
      notify('success', 'Письмо с подтверждением отправлено на вашу почту. Проверьте почту!');
      navigate('/login');
    } catch (err) {
      notify('danger', registrationError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card card-narrow">
      <h1>Регистрация</h1>
      <form className="form" onSubmit={submit} noValidate>
        <Field
          label="Имя пользователя"
          name="username"
          autoComplete="username"
          value={form.username}
          onChange={set('username')}
          hint="Это ваш ник в игре: 3–16 латинских букв, цифр или «_»."
        />
        <Field
          label="Почта"
          name="email"
          type="email"
          autoComplete="email"
          value={form.email}
          onChange={set('email')}
          hint="На неё придёт письмо для подтверждения."
        />
        <Field
          label="Пароль"
          name="password"
          type="password"
          autoComplete="new-password"
          value={form.password}
          onChange={set('password')}
          hint={<PasswordHint password={form.password} others={[form.username, form.email]} />}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Отправляем…' : 'Зарегистрироваться'}
        </button>
        <p className="muted">
          Уже есть аккаунт? <Link to="/login">Войти</Link>
        </p>
      </form>
    </section>
  );
}
