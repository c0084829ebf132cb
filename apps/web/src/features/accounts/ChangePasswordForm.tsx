import { ChangePasswordBody, type MessageResponse } from '@kubik/contract';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { PasswordHint } from '../../components/PasswordHint.tsx';
import { useAuth } from '../../providers/auth.tsx';
import { api, ApiError } from '../../lib/api.ts';
import { useNotify } from '../../providers/notifications.tsx';
import './accounts.css';

const changePassword = (body: ChangePasswordBody) => api<MessageResponse>('/api/user/change-password', { method: 'POST', body });

/** The server's rule for the new password, plus the repeat. */
const PasswordChange = ChangePasswordBody.extend({ old_password: z.string().min(1, 'Введите текущий пароль'), repeat_password: z.string() })
  .refine((v) => v.new_password !== v.old_password, { path: ['new_password'], message: 'Новый пароль совпадает с текущим' })
  .refine((v) => v.repeat_password === v.new_password, { path: ['repeat_password'], message: 'Пароли не совпадают' });

/** Settings tab: a real password change; the server ends the player's other sessions. */
export function ChangePasswordForm() {
  const notify = useNotify();
  const form = useSchemaForm(PasswordChange, { defaultValues: { old_password: '', new_password: '', repeat_password: '' } });
  const { user } = useAuth();
  const typed = form.watch('new_password');

  async function save({ old_password, new_password }: z.output<typeof PasswordChange>) {
    try {
      const res = await changePassword({ old_password, new_password });
      form.reset();
      notify('success', res.message);
    } catch (err) {
      // Shown beside its field (or above the button) by the form kit, not in a toast over the form.
      const text = err instanceof ApiError && err.message ? err.message : 'Не удалось изменить пароль. Попробуйте позже.';
      throw err instanceof ApiError ? err : new ApiError(0, text);
    }
  }

  return (
    <section className="password-form stack" aria-labelledby="password-form-title">
      <h2 id="password-form-title">Смена пароля</h2>
      <Form form={form} onSubmit={save}>
        <TextField name="old_password" label="Текущий пароль" type="password" autoComplete="current-password" />
        <TextField
          name="new_password"
          label="Новый пароль"
          type="password"
          autoComplete="new-password"
          hint={
            <PasswordHint
              password={typed}
              others={[user?.username, user?.email]}
              extra="Другие устройства, где вы вошли, выйдут из аккаунта."
            />
          }
        />
        <TextField name="repeat_password" label="Повторите новый пароль" type="password" autoComplete="new-password" />
        <FormErrors />
        <FormActions />
      </Form>
    </section>
  );
}
