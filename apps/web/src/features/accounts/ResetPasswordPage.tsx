import type { ResetPasswordBody } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { ApiError } from '../../lib/api.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { checkResetLink, resetPassword } from './api.ts';
import { resetPasswordSchema } from './auth-schema-loaders.ts';
import { RESET_ERRORS } from './errors.ts';
import { REDIRECT_DELAY_MS, ResetLetterForm } from './ForgotPasswordPage.tsx';

export default function ResetPasswordPage() {
  useTitle('Новый пароль');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  // The link is checked as the page opens, without using it: a spent or broken one says so before
  // a password is typed for nothing. Only the server's «no» counts; without an answer the form stays.
  const check = useQuery({
    queryKey: ['reset-link', token],
    queryFn: () => checkResetLink(token),
    enabled: token !== '',
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
  const [spent, setSpent] = useState(false);
  const refused = check.error instanceof ApiError && check.error.status >= 400 && check.error.status < 500;
  if (!token || refused || spent) return <SpentLink missing={!token} />;
  if (check.isPending)
    return (
      <section className="card card-narrow">
        <h1>Новый пароль</h1>
        <p className="muted" role="status">
          Проверяем ссылку…
        </p>
      </section>
    );
  return <NewPasswordForm token={token} onSpent={() => setSpent(true)} />;
}

/** A link without its code, spent or expired: why, and a new letter at once. */
function SpentLink({ missing }: { missing: boolean }) {
  const [sent, setSent] = useState(false);
  return (
    <section className="card card-narrow stack" data-testid="reset-link-spent">
      <h1>Новый пароль</h1>
      <p className="notice notice-warning" role="alert">
        {missing
          ? 'В ссылке нет кода сброса: откройте ссылку из письма целиком.'
          : 'Ссылка для сброса пароля недействительна или устарела: она действует час и только один раз.'}
      </p>
      {sent ? (
        <p className="notice notice-success" role="status">
          Если почта зарегистрирована, мы отправили на неё новое письмо со ссылкой. Проверьте почту.
        </p>
      ) : (
        <>
          <p>Укажите почту аккаунта — мы пришлём новое письмо со ссылкой для сброса пароля.</p>
          <ResetLetterForm onSent={() => setSent(true)} />
        </>
      )}
      <p className="muted">
        <Link to="/login">Вернуться ко входу</Link>
      </p>
    </section>
  );
}

function NewPasswordForm({ token, onSpent }: { token: string; onSpent: () => void }) {
  const [, navigate] = useLocation();
  const notify = useNotify();
  const { user, refresh } = useAuth();
  const form = useSchemaForm(resetPasswordSchema, { defaultValues: { new_password: '' } });
  const typed = form.watch('new_password');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function submit({ new_password }: ResetPasswordBody) {
    try {
      await resetPassword(token, new_password);
    } catch (err) {
      // Spent meanwhile (used in another tab, or expired while the page stood open).
      if (err instanceof ApiError && err.code === 'reset_link_invalid') return onSpent();
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
        <SubmitButton label="Сохранить пароль" pendingLabel="Сохраняем…" className="btn btn-primary btn-block" />
      </Form>
    </section>
  );
}
