import type { ResetPasswordBody } from '@kubik/contract';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { ApiError } from '../../lib/api.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { resetPassword } from './api.ts';
import { resetPasswordSchema } from './auth-schema-loaders.ts';
import { RESET_ERRORS } from './errors.ts';
import { REDIRECT_DELAY_MS } from './ForgotPasswordPage.tsx';

export default function ResetPasswordPage() {
  useTitle('Новый пароль');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [, navigate] = useLocation();
  const notify = useNotify();
  const { user, refresh } = useAuth();
  const form = useSchemaForm(resetPasswordSchema, { defaultValues: { new_password: '' } });
  const typed = form.watch('new_password');
  const [expired, setExpired] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function submit({ new_password }: ResetPasswordBody) {
    try {
      await resetPassword(token, new_password);
    } catch (err) {
      setExpired(err instanceof ApiError && err.code === 'reset_link_invalid');
      throw err;
    }
    notify('success', 'Пароль успешно сброшен');
    // A new password ends every login, this browser's too (when a signed-in player set it).
    if (user) refresh();
    // The button stays disabled until the page changes.
    await new Promise<void>((done) => {
      timer.current = window.setTimeout(() => {
        navigate('/login');
        done();
      }, REDIRECT_DELAY_MS);
    });
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
      <Form form={form} onSubmit={submit} serverErrors={RESET_ERRORS}>
        <TextField
          name="new_password"
          label="Новый пароль"
          type="password"
          autoComplete="new-password"
          hint={<PasswordHint password={typed} />}
        />
        <FormErrors fields={false} />
        {expired && (
          <p>
            <Link to="/forgot-password">Запросить новую ссылку</Link>
          </p>
        )}
        <SubmitButton label="Сохранить пароль" pendingLabel="Сохраняем…" className="btn btn-primary btn-block" />
      </Form>
    </section>
  );
}
