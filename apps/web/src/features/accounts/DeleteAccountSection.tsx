import { DeleteAccountBody } from '@kubik/contract';
import { useState } from 'react';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { formatRub } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { deleteAccount } from './self-api.ts';
import './accounts.css';

/** Settings tab: «Удалить аккаунт» with a confirmation dialog that asks for the password. */
export function DeleteAccountSection() {
  const [open, setOpen] = useState(false);
  return (
    <section className="password-form stack danger-zone" aria-labelledby="delete-account-title">
      <h2 id="delete-account-title">Удаление аккаунта</h2>
      <p className="hint">
        Имя, почта и пароль будут стёрты, вы выйдете на всех устройствах и в игре. История покупок и платежей сохранится без ваших данных.
      </p>
      <div>
        <button type="button" className="btn btn-danger" onClick={() => setOpen(true)}>
          Удалить аккаунт
        </button>
      </div>
      <Modal open={open} title="Удалить аккаунт?" onClose={() => setOpen(false)}>
        {open && <DeleteAccountForm onCancel={() => setOpen(false)} />}
      </Modal>
    </section>
  );
}

function DeleteAccountForm({ onCancel }: { onCancel: () => void }) {
  const { user, logout } = useAuth();
  const notify = useNotify();
  const form = useSchemaForm(DeleteAccountBody, { defaultValues: { password: '', code: '' } });
  async function remove({ password, code }: DeleteAccountBody) {
    const res = await deleteAccount({ password, ...(code ? { code } : {}) });
    notify('success', res.message);
    await logout();
  }
  return (
    <Form form={form} onSubmit={remove}>
      <p>Это нельзя отменить. Аккаунт {user?.username} будет удалён, имя и почта освободятся.</p>
      {user && user.balance > 0 && (
        <p className="notice notice-warning">На балансе {formatRub(user.balance)} — они пропадут вместе с аккаунтом.</p>
      )}
      <TextField
        name="password"
        label="Пароль"
        type="password"
        autoComplete="current-password"
        hint="Введите пароль, чтобы подтвердить удаление."
      />
      <TextField
        name="code"
        label="Код из приложения"
        inputMode="numeric"
        autoComplete="one-time-code"
        hint="Только если включена двухфакторная защита: код из приложения или код восстановления."
      />
      <FormErrors />
      <FormActions onCancel={onCancel} submitLabel="Удалить навсегда" pendingLabel="Удаляем…" />
    </Form>
  );
}
