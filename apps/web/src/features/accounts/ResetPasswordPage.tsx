import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { resetPassword } from './api.ts';
import { REDIRECT_DELAY_MS } from './ForgotPasswordPage.tsx';

export default function ResetPasswordPage() {
  useTitle('Новый пароль');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [, navigate] = useLocation();
  const notify = useNotify();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      await resetPassword(token, password);
      notify('success', 'Пароль успешно сброшен');
      timer.current = window.setTimeout(() => navigate('/login'), REDIRECT_DELAY_MS);
    } catch (err) {
      // A refused password is told beside the field; anything else keeps the spec's text.
      const refused = err instanceof ApiError && err.code === 'weak_password' ? err.message : null;
      setError(refused);
      notify('danger', refused ? `Не удалось сбросить пароль: ${refused}` : 'Не удалось сбросить пароль');
      setBusy(false);
    }
  }

  if (!token) {
    return (
      <section className="card card-narrow">
        <h1>Новый пароль</h1>
        <p className="notice notice-warning">В ссылке нет кода сброса. Запросите новую ссылку.</p>
        <Link to="/forgot-password" className="btn btn-primary">
          Запросить ссылку
        </Link>
      </section>
    );
  }
  return (
    <section className="card card-narrow">
      <h1>Новый пароль</h1>
      <form className="form" onSubmit={submit} noValidate>
        <Field
          label="Новый пароль"
          name="new_password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
            setError(null);
          }}
          hint={<PasswordHint password={password} />}
          error={error}
          required
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Сохраняем…' : 'Сохранить пароль'}
        </button>
      </form>
    </section>
  );
}
