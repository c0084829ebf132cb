import type { ForgotPasswordBody } from '@kubik/contract';
import { useEffect, useRef } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { forgotPassword, resendConfirmation } from './api.ts';
import { forgotPasswordSchema } from './auth-schema-loaders.ts';
import { mailLinkErrors } from './errors.ts';

export const REDIRECT_DELAY_MS = 2000;

/**
 * The letter with a reset link: the account's e-mail, sent by «Отправить новое письмо» where a
 * link turned out spent (ResetPasswordPage); the answer is the same whether the address is known.
 */
export function ResetLetterForm({ onSent }: { onSent: () => void }) {
  const form = useSchemaForm(forgotPasswordSchema, { defaultValues: { email: '' } });
  return (
    <Form
      form={form}
      onSubmit={async (body: ForgotPasswordBody) => {
        await forgotPassword(body);
        onSent();
      }}
      serverErrors={mailLinkErrors('Не удалось отправить ссылку для сброса пароля')}
    >
      <TextField name="email" label="Почта" type="email" autoComplete="email" />
      <FormErrors fields={false} />
      <SubmitButton label="Отправить новое письмо" pendingLabel="Отправляем…" className="btn btn-primary btn-block" />
    </Form>
  );
}

export default function ForgotPasswordPage() {
  const [params] = useSearchParams();
  const resend = params.get('resend') === '1';
  useTitle(resend ? 'Письмо подтверждения' : 'Восстановление пароля');
  const [, navigate] = useLocation();
  const notify = useNotify();
  const form = useSchemaForm(forgotPasswordSchema, { defaultValues: { email: '' } });
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function submit(body: ForgotPasswordBody) {
    if (resend) {
      await resendConfirmation(body);
      notify('success', 'Если почта зарегистрирована и ещё не подтверждена, мы отправили новое письмо');
    } else {
      await forgotPassword(body);
      notify('success', 'Письмо со ссылкой для сброса пароля отправлено');
    }
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
      <h1>{resend ? 'Письмо подтверждения' : 'Восстановление пароля'}</h1>
      <p className="muted">
        {resend
          ? 'Укажите почту, с которой вы регистрировались, и мы пришлём новую ссылку.'
          : 'Укажите почту аккаунта — мы пришлём ссылку для сброса пароля.'}
      </p>
      <Form
        form={form}
        onSubmit={submit}
        serverErrors={mailLinkErrors(resend ? 'Не удалось отправить письмо' : 'Не удалось отправить ссылку для сброса пароля')}
      >
        <TextField name="email" label="Почта" type="email" autoComplete="email" />
        <FormErrors fields={false} />
        <SubmitButton label="Отправить" pendingLabel="Отправляем…" className="btn btn-primary btn-block" />
        <p className="muted">
          <Link to="/login">Вернуться ко входу</Link>
        </p>
      </Form>
    </section>
  );
}
