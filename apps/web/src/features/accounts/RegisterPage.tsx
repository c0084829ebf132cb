import { isLocalPath } from '@kubik/contract/local-path';
import { Link, useLocation } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import type { z } from 'zod';
import { registrationSchema } from './auth-schema-loaders.ts';
import type { Registration } from './auth-schemas.ts';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { useTitle } from '../../providers/title.ts';
import { register } from './api.ts';
import type { ConsentKind } from '@kubik/contract';
import { useState } from 'react';
import { useLegal } from '../../providers/legal.ts';
import { CONSENT_MISSING, ConsentBoxes } from '../../components/ConsentBoxes.tsx';
import { REGISTRATION_ERRORS } from './errors.ts';

export default function RegisterPage() {
  useTitle('Регистрация');
  const [, navigate] = useLocation();
  // The page the player was on when they chose to register (the header's link, the login page's).
  const from = useHistoryState<{ from?: string } | null>()?.from;
  const back = isLocalPath(from) ? from : undefined;
  const form = useSchemaForm(registrationSchema, { defaultValues: { username: '', email: '', password: '' } });
  const [username, email, password] = form.watch(['username', 'email', 'password']);
  // The owner's published personal-data policy and offer: a box each, not ticked for the player.
  const asked = useLegal()?.register_consents ?? [];
  const [ticked, setTicked] = useState<ConsentKind[]>([]);
  const [consentErrors, setConsentErrors] = useState<Partial<Record<ConsentKind, string>>>({});

  async function submit(body: z.output<typeof Registration>) {
    const missing = asked.filter((k) => !ticked.includes(k));
    setConsentErrors(Object.fromEntries(missing.map((k) => [k, CONSENT_MISSING[k]])));
    if (missing.length > 0) return;
    // The letter's link leads back here after logging in: register → confirm → log in → where they were.
    await register({
      ...body,
      ...(back ? { return_to: back } : {}),
      ...(asked.length > 0 ? { consents: ticked.filter((k) => asked.includes(k)) } : {}),
    });
    // The login page says what to do next, in the page (not a toast gone in 5 seconds).
    navigate('/login', { state: { from: back, registered: body.email } });
  }

  return (
    <section className="card card-narrow">
      <h1>Регистрация</h1>
      <Form form={form} onSubmit={submit} serverErrors={REGISTRATION_ERRORS}>
        <TextField
          name="username"
          label="Имя пользователя"
          autoComplete="username"
          hint="Это ваш ник в игре: 3–16 латинских букв, цифр или «_»."
        />
        <TextField name="email" label="Почта" type="email" autoComplete="email" hint="На неё придёт письмо для подтверждения." />
        <TextField
          name="password"
          label="Пароль"
          type="password"
          autoComplete="new-password"
          hint={<PasswordHint password={password} others={[username, email]} />}
        />
        <ConsentBoxes
          asked={asked}
          ticked={ticked}
          errors={consentErrors}
          onChange={(next) => {
            setTicked(next);
            setConsentErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !next.includes(k as ConsentKind))));
          }}
        />
        <FormErrors />
        <SubmitButton label="Зарегистрироваться" pendingLabel="Отправляем…" className="btn btn-primary btn-block" />
        <p className="muted">
          Уже есть аккаунт?{' '}
          <Link to="/login" state={{ from: back }}>
            Войти
          </Link>
        </p>
      </Form>
    </section>
  );
}
