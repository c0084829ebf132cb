import { isLocalPath } from '@kubik/contract/local-path';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import type { z } from 'zod';
import { loginSchema } from './auth-schema-loaders.ts';
import type { LoginCredentials } from './auth-schemas.ts';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { ApiError } from '../../lib/api.ts';
import { ME_KEY } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { giveGameAccountEmail, login } from './api.ts';
import { accountError, LOGIN_ERRORS } from './errors.ts';

type Credentials = z.output<typeof LoginCredentials>;

export default function LoginPage() {
  useTitle('Вход');
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const historyState = useHistoryState<{ from?: string; registered?: string } | null>();
  const queryClient = useQueryClient();
  const form = useSchemaForm(loginSchema, { defaultValues: { username: '', password: '' } });
  // The server's 403 `email_not_confirmed`: its text, as a warning with the way to a new letter.
  const [unconfirmed, setUnconfirmed] = useState<string | null>(null);
  // Two-factor login: the server asked for the authenticator's code (401 two_factor_required).
  const [needCode, setNeedCode] = useState(false);
  // A banned account with the right password: the refusal carries a signed link to appeal the ban (/support/appeal).
  const [appeal, setAppeal] = useState<string | null>(null);
  // An account from the game (AuthMe) without an address: the server's 403 authme_email_required asks for one.
  const [needEmail, setNeedEmail] = useState<string | null>(null);
  const [emailSent, setEmailSent] = useState<string | null>(null);
  // What brought the player here is said in the page, and goes with it once they log in (a toast
  // would outlive the page and still say «confirmed» over the next one).
  const verified = params.get('verified');
  const registered = historyState?.registered;
  // Where to go after logging in: the confirmation link's way back, or the page that sent them here.
  const next = params.get('next');
  const from = historyState?.from;
  const back = isLocalPath(next) && next !== '/login' ? next : isLocalPath(from) && from !== '/login' ? from : null;

  useEffect(() => {
    if (needCode) form.setFocus('code');
  }, [needCode, form]);

  useEffect(() => {
    if (needEmail) form.setFocus('email');
  }, [needEmail, form]);

  async function submit({ username, password, code, email }: Credentials) {
    setUnconfirmed(null);
    setAppeal(null);
    if (needEmail) {
      if (!email) throw new ApiError(400, 'Введите адрес почты', 'invalid', 'email');
      // A taken address is said beside its field, in Russian.
      const sent = await giveGameAccountEmail({ username: username.trim(), password, email }).catch((err: unknown) => {
        throw accountError(err);
      });
      setNeedEmail(null);
      setEmailSent(sent.message);
      return;
    }
    try {
      await login({ username: username.trim(), password, ...(needCode && code ? { code } : {}) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'email_not_confirmed') return setUnconfirmed(err.message || 'Почта не подтверждена');
      const ban = err.details?.ban as { appeal_token?: unknown } | undefined;
      if (err.code === 'banned' && typeof ban?.appeal_token === 'string') setAppeal(ban.appeal_token);
      if (err.code === 'authme_email_required') return setNeedEmail(err.message);
      if (err.code === 'two_factor_required' || err.code === 'bad_two_factor_code') {
        form.setValue('code', '');
        // The first ask only opens the code field; a second one (no code typed) is an error beside it.
        if (err.code === 'two_factor_required' && !needCode) return setNeedCode(true);
        setNeedCode(true);
        throw new ApiError(err.status, err.message, err.code, 'code');
      }
      throw err;
    }
    await queryClient.invalidateQueries({ queryKey: ME_KEY });
    navigate(back ?? '/', { replace: true });
  }

  return (
    <section className="card card-narrow">
      <h1>Вход</h1>
      {registered && !verified && (
        <div className="notice notice-success" role="status" data-testid="login-registered">
          <p>Письмо с подтверждением отправлено на вашу почту. Проверьте почту!</p>
          <p>
            Откройте ссылку из письма, отправленного на {registered}, и войдите{back ? ' — вы вернётесь туда, где были' : ''}. Письма нет?{' '}
            <Link to="/forgot-password?resend=1">Отправить ещё раз</Link>
          </p>
        </div>
      )}
      {verified === 'true' && (
        <p className="notice notice-success" role="status" data-testid="login-verified">
          Почта успешно подтверждена! Теперь вы можете войти.
        </p>
      )}
      {verified === 'invalid' && (
        <p className="notice notice-warning" role="alert" data-testid="login-verified">
          Ссылка подтверждения недействительна или устарела. Войдите, чтобы получить новую.
        </p>
      )}
      <Form form={form} onSubmit={submit} serverErrors={LOGIN_ERRORS} guard={false}>
        <TextField name="username" label="Имя или почта" autoComplete="username" />
        <TextField name="password" label="Пароль" type="password" autoComplete="current-password" />
        {needCode && (
          <TextField
            name="code"
            label="Код подтверждения"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={32}
            hint="Включена двухфакторная защита: введите 6 цифр из приложения-аутентификатора или один из кодов восстановления."
          />
        )}
        {needEmail && (
          <>
            <p className="notice notice-warning" role="alert" data-testid="login-need-email">
              {needEmail}
            </p>
            <TextField name="email" label="Почта" type="email" autoComplete="email" />
          </>
        )}
        {emailSent && (
          <p className="notice notice-success" role="status" data-testid="login-email-sent">
            {emailSent}
          </p>
        )}
        {unconfirmed && (
          <div className="notice notice-warning" role="alert" data-testid="login-unconfirmed">
            <p>
              {unconfirmed.replace(/\.$/, '')}. Откройте ссылку из письма, которое мы отправили при регистрации.{' '}
              <Link to="/forgot-password?resend=1">Отправить письмо ещё раз</Link>
            </p>
          </div>
        )}
        <FormErrors fields={false} />
        {appeal && (
          <p className="notice notice-warning" data-testid="login-appeal">
            Считаете блокировку ошибкой? <a href={`/support/appeal#${appeal}`}>Обжаловать блокировку</a>
          </p>
        )}
        <SubmitButton
          label={needEmail ? 'Отправить письмо' : 'Войти'}
          pendingLabel={needEmail ? 'Отправляем…' : 'Входим…'}
          className="btn btn-primary btn-block"
        />
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <button type="button" className="link-button" onClick={() => navigate('/forgot-password')}>
            Забыли пароль?
          </button>
          <Link to="/register" state={{ from: back ?? undefined }}>
            Регистрация
          </Link>
        </div>
      </Form>
    </section>
  );
}
