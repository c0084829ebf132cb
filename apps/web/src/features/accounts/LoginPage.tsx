import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import { ME_KEY } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { ApiError } from '../../lib/api.ts';
import { useTitle } from '../../providers/title.ts';
import { login } from './api.ts';

export default function LoginPage() {
  useTitle('Вход');
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const historyState = useHistoryState<{ from?: string } | null>();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [unconfirmed, setUnconfirmed] = useState(false);
  // Two-factor login: the server asked for the authenticator's code (401 two_factor_required).
  const [needCode, setNeedCode] = useState(false);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const shown = useRef(false);

  const verified = params.get('verified');
  useEffect(() => {
    if (shown.current) return;
    shown.current = true;
    if (verified === 'true') notify('success', 'Почта успешно подтверждена! Теперь вы можете войти.');
    if (verified === 'invalid') notify('warning', 'Ссылка подтверждения недействительна или устарела. Войдите, чтобы получить новую.');
  }, [verified, notify]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setUnconfirmed(false);
    setCodeError(null);
    try {
      await login({ username: username.trim(), password, ...(needCode && code.trim() ? { code: code.trim() } : {}) });
      await queryClient.invalidateQueries({ queryKey: ME_KEY });
      const from = historyState?.from;
      navigate(from && from !== '/login' ? from : '/', { replace: true });
    } catch (err) {
      const text = err instanceof ApiError ? err.message : '';
      if (err instanceof ApiError && (err.code === 'two_factor_required' || err.code === 'bad_two_factor_code')) {
        setNeedCode(true);
        if (err.code === 'bad_two_factor_code') setCodeError(text);
        else if (needCode) setCodeError(text);
        setCode('');
        setTimeout(() => document.querySelector<HTMLInputElement>('input[name="code"]')?.focus(), 0);
      } else if (err instanceof ApiError && err.status === 403 && text) {
        if (text.includes('Почта не подтверждена')) {
          setUnconfirmed(true);
          notify('warning', text);
        } else notify('danger', text);
      } else if (err instanceof ApiError && err.status === 429 && text) {
        notify('danger', text);
      } else {
        notify('danger', 'Неверное имя пользователя или пароль');
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card card-narrow">
      <h1>Вход</h1>
      <form className="form" onSubmit={submit} noValidate>
        <Field
          label="Имя пользователя"
          name="username"
          autoComplete="username"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          required
        />
        <Field
          label="Пароль"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        {needCode && (
          <Field
            label="Код подтверждения"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={32}
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={codeError}
            hint="Включена двухфакторная защита: введите 6 цифр из приложения-аутентификатора или один из кодов восстановления."
          />
        )}
        {unconfirmed && (
          <p className="notice notice-warning">
            Почта не подтверждена. Откройте ссылку из письма, которое мы отправили при регистрации.{' '}
            <Link to="/forgot-password?resend=1">Отправить письмо ещё раз</Link>
          </p>
        )}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Входим…' : 'Войти'}
        </button>
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <button type="button" className="link-button" onClick={() => navigate('/forgot-password')}>
            Забыли пароль?
          </button>
          <Link to="/register">Регистрация</Link>
        </div>
      </form>
    </section>
  );
}
