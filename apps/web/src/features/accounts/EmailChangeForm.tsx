import { EmailChangeBody } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { EMAIL_STATUS_KEY, fetchEmailStatus, requestEmailChange, withdrawEmailChange } from './self-api.ts';
import './accounts.css';

/** Settings tab: the current address, a pending change, and the form for a new one. */
export function EmailChangeForm() {
  const notify = useNotify();
  const client = useQueryClient();
  const status = useQuery({ queryKey: EMAIL_STATUS_KEY, queryFn: fetchEmailStatus });
  const form = useSchemaForm(EmailChangeBody, { defaultValues: { email: '', password: '' } });
  const [withdrawing, setWithdrawing] = useState(false);

  async function save(body: EmailChangeBody) {
    const res = await requestEmailChange(body);
    form.reset();
    notify('success', res.message);
    await client.invalidateQueries({ queryKey: EMAIL_STATUS_KEY });
  }

  async function withdraw() {
    setWithdrawing(true);
    try {
      notify('success', (await withdrawEmailChange()).message);
      await client.invalidateQueries({ queryKey: EMAIL_STATUS_KEY });
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Произошла ошибка');
    } finally {
      setWithdrawing(false);
    }
  }

  const pending = status.data?.pending;
  return (
    <section className="password-form stack" aria-labelledby="email-form-title">
      <h2 id="email-form-title">Почта</h2>
      {status.data && (
        <p>
          Сейчас: <strong data-testid="current-email">{status.data.email}</strong>
        </p>
      )}
      {pending && (
        <div className="notice notice-warning" role="status" data-testid="pending-email">
          <p>
            Ждём подтверждения нового адреса <strong>{pending.email}</strong>: откройте ссылку из письма до{' '}
            {formatDateTime(pending.expires_at)}.
          </p>
          <button type="button" className="btn btn-small" onClick={withdraw} disabled={withdrawing}>
            {withdrawing ? 'Отменяем…' : 'Отменить смену'}
          </button>
        </div>
      )}
      <Form form={form} onSubmit={save}>
        <TextField
          name="email"
          label="Новая почта"
          type="email"
          autoComplete="email"
          hint="Почта сменится, когда вы откроете ссылку из письма на новый адрес. На старый придёт уведомление со ссылкой отмены."
        />
        <TextField name="password" label="Пароль" type="password" autoComplete="current-password" />
        <FormErrors />
        <FormActions submitLabel="Сменить почту" pendingLabel="Отправляем…" />
      </Form>
    </section>
  );
}
