import { SOCIAL_PROVIDER_TITLES, SocialCompleteBody, SocialRegisterBody, type ConsentKind, type SocialPending } from '@kubik/contract';
import { CONSENT_MISSING, ConsentBoxes } from '../../components/ConsentBoxes.tsx';
import { useLegal } from '../../providers/legal.ts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { Form, FormErrors, SubmitButton, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { ME_KEY } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { completeTwoFactor, fetchPending, PENDING_KEY, registerThrough } from './api.ts';

/**
 * /login/social: a login through a provider that still needs something — the authenticator's code
 * (two-factor login) or, for a new player, the game name and an e-mail.
 */
export default function SocialCompletePage() {
  useTitle('Вход через соцсеть');
  const query = useQuery({ queryKey: PENDING_KEY, queryFn: fetchPending, retry: false, gcTime: 0 });
  if (query.isPending) return <Loading />;
  if (query.isError || !query.data)
    return (
      <section className="card card-narrow">
        <h1>Вход через соцсеть</h1>
        <div className="notice notice-warning" role="alert">
          <p>Вход через соцсеть не найден или устарел. Начните вход заново.</p>
        </div>
        <p>
          <Link to="/login">Ко входу</Link>
        </p>
      </section>
    );
  return query.data.kind === 'two_factor' ? <TwoFactorStep pending={query.data} /> : <RegisterStep pending={query.data} />;
}

function TwoFactorStep({ pending }: { pending: SocialPending }) {
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const form = useSchemaForm(SocialCompleteBody, { defaultValues: { code: '' } });
  useEffect(() => form.setFocus('code'), [form]);
  return (
    <section className="card card-narrow">
      <h1>Подтверждение входа</h1>
      <p className="muted">
        Вы входите через {SOCIAL_PROVIDER_TITLES[pending.provider]} ({pending.display_name}). На аккаунте включена двухфакторная защита.
      </p>
      <Form
        form={form}
        guard={false}
        serverErrors={{ codes: { bad_two_factor_code: { field: 'code' }, two_factor_required: { field: 'code' } } }}
        onSubmit={async ({ code }) => {
          try {
            await completeTwoFactor(code);
          } catch (err) {
            if (err instanceof ApiError && err.code === 'social_pending_invalid') {
              await queryClient.invalidateQueries({ queryKey: ['social', 'pending'] });
            }
            throw err;
          }
          await queryClient.invalidateQueries({ queryKey: ME_KEY });
          navigate('/profile', { replace: true });
        }}
      >
        <TextField
          name="code"
          label="Код подтверждения"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={32}
          hint="6 цифр из приложения-аутентификатора или один из кодов восстановления."
        />
        <FormErrors fields={false} />
        <SubmitButton label="Войти" pendingLabel="Входим…" className="btn btn-primary btn-block" />
      </Form>
    </section>
  );
}

function RegisterStep({ pending }: { pending: SocialPending }) {
  const [sent, setSent] = useState<string | null>(null);
  const form = useSchemaForm(SocialRegisterBody, { defaultValues: { username: pending.suggested_username, email: '' } });
  // The same separate boxes as the password registration, once the owner published the documents.
  const asked = useLegal()?.register_consents ?? [];
  const [ticked, setTicked] = useState<ConsentKind[]>([]);
  const [consentErrors, setConsentErrors] = useState<Partial<Record<ConsentKind, string>>>({});
  async function submit(body: SocialRegisterBody) {
    const missing = asked.filter((k) => !ticked.includes(k));
    setConsentErrors(Object.fromEntries(missing.map((k) => [k, CONSENT_MISSING[k]])));
    if (missing.length > 0) return;
    setSent(
      (await registerThrough({ ...body, ...(asked.length > 0 ? { consents: ticked.filter((k) => asked.includes(k)) } : {}) })).message,
    );
  }
  if (sent)
    return (
      <section className="card card-narrow">
        <h1>Проверьте почту</h1>
        <div className="notice notice-success" role="status" data-testid="social-register-sent">
          <p>{sent}</p>
        </div>
      </section>
    );
  return (
    <section className="card card-narrow">
      <h1>Регистрация через {SOCIAL_PROVIDER_TITLES[pending.provider]}</h1>
      <p className="muted">
        Аккаунт {pending.display_name} ещё не привязан к игроку. Придумайте имя в игре и укажите почту — на неё придёт ссылка для завершения
        регистрации, а если понадобится, и для восстановления доступа.
      </p>
      <p className="muted">
        Уже играете у нас? <Link to="/login">Войдите</Link> и привяжите {SOCIAL_PROVIDER_TITLES[pending.provider]} в профиле (Настройки).
      </p>
      <Form form={form} onSubmit={submit}>
        <TextField name="username" label="Имя в игре" autoComplete="username" hint="От 3 до 16 символов: латинские буквы, цифры и «_»." />
        <TextField name="email" label="Почта" type="email" autoComplete="email" />
        <ConsentBoxes
          asked={asked}
          ticked={ticked}
          errors={consentErrors}
          onChange={(next) => {
            setTicked(next);
            setConsentErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !next.includes(k as ConsentKind))));
          }}
        />
        <FormErrors fields={false} />
        <SubmitButton label="Продолжить" pendingLabel="Отправляем…" className="btn btn-primary btn-block" />
      </Form>
    </section>
  );
}
