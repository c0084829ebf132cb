import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { forgotPassword, resendConfirmation } from './api.ts';

export const REDIRECT_DELAY_MS = 2000;

export default function ForgotPasswordPage() {
  const [params] = useSearchParams();
  const resend = params.get('resend') === '1';
  useTitle(resend ? 'Письмо подтверждения' : 'Восстановление пароля');
  const [, navigate] = useLocation();
  const notify = useNotify();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      if (resend) {
        await resendConfirmation({ email: email.trim() });
        notify('success', 'Если почта зарегистрирована и ещё не подтверждена, мы отправили новое письмо');
      } else {
        await forgotPassword({ email: email.trim() });
        notify('success', 'Письмо со ссылкой для сброса пароля отправлено');
      }
      timer.current = window.setTimeout(() => navigate('/login'), REDIRECT_DELAY_MS);
    } catch (err) {
      const text = err instanceof ApiError && err.status === 429 ? err.message : '';
      notify('danger', text || (resend ? 'Не удалось отправить письмо' : 'Не удалось отправить ссылку для сброса пароля'));
      setBusy(false);
    }
  }

  return (
    <section className="card card-narrow">
      <h1>{resend ? 'Письмо подтверждения' : 'Восстановление пароля'}</h1>
      <p className="muted">
        {resend
          ? 'Укажите почту, с которой вы регистрировались, и мы пришлём новую ссылку.'
          : 'Укажите почту аккаунта — мы пришлём ссылку для сброса пароля.'}
      </p>
      <form className="form" onSubmit={submit} noValidate>
        <Field
          label="Почта"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Отправляем…' : 'Отправить'}
        </button>
        <p className="muted">
          <Link to="/login">Вернуться ко входу</Link>
        </p>
      </form>
    </section>
  );
}
