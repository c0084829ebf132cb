import { NewPassword, PASSWORD_MIN, type ChangePasswordBody, type MessageResponse } from '@kubik/contract';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { api, ApiError } from '../../lib/api.ts';
import './accounts.css';

const changePassword = (body: ChangePasswordBody) => api<MessageResponse>('/api/user/change-password', { method: 'POST', body });

interface Errors {
  old?: string;
  next?: string;
  repeat?: string;
}

/** The registration rule for passwords (the contract's schema, checked again by the server), plus the repeat. */
function check(old: string, next: string, repeat: string): Errors {
  const errors: Errors = {};
  if (!old) errors.old = 'Введите текущий пароль';
  const rule = NewPassword.safeParse(next);
  if (!rule.success) errors.next = rule.error.issues[0]?.message;
  else if (next === old) errors.next = 'Новый пароль совпадает с текущим';
  if (!errors.next && repeat !== next) errors.repeat = 'Пароли не совпадают';
  return errors;
}

/** Settings tab: a real password change; the server ends the player's other sessions. */
export function ChangePasswordForm() {
  const notify = useNotify();
  const [old, setOld] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<Errors>({});

  const save = useMutation({
    mutationFn: changePassword,
    onSuccess: (res) => {
      setOld('');
      setNext('');
      setRepeat('');
      notify('success', res.message);
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось изменить пароль. Попробуйте позже.'),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const found = check(old, next, repeat);
    setErrors(found);
    if (Object.keys(found).length === 0) save.mutate({ old_password: old, new_password: next });
  }

  return (
    <form className="form password-form" onSubmit={submit} noValidate aria-labelledby="password-form-title">
      <h2 id="password-form-title">Смена пароля</h2>
      <Field label="Текущий пароль" name="old_password" type="password" autoComplete="current-password" value={old} onChange={(e) => setOld(e.target.value)} error={errors.old} required />
      <Field
        label="Новый пароль"
        name="new_password"
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={(e) => setNext(e.target.value)}
        hint={`Не короче ${PASSWORD_MIN} символов. Другие устройства, где вы вошли, выйдут из аккаунта.`}
        error={errors.next}
        required
      />
      <Field label="Повторите новый пароль" name="repeat_password" type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)} error={errors.repeat} required />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? 'Сохраняем…' : 'Сохранить'}
        </button>
      </div>
    </form>
  );
}
