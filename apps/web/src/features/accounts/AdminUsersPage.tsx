import type { AdminUser } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ME_KEY, useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { Field } from '../../components/Field.tsx';
import { Modal } from '../../components/Modal.tsx';
import { Empty, Loading } from '../../components/States.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatRub } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { ADMIN_USERS_KEY, deleteUser, fetchUsers, updateUser } from './admin-api.ts';
import { register } from './api.ts';

interface Draft {
  id: number | null;
  username: string;
  email: string;
  password: string;
  balance: string;
  /** The balance shown when the modal opened; see save. */
  shownBalance: string;
  is_admin: boolean;
}

const EMPTY: Draft = { id: null, username: '', email: '', password: '', balance: '0', shownBalance: '0', is_admin: false };

/** The server's text, with the two English registration texts in Russian (spec §8). */
function errorText(err: unknown): string {
  const text = err instanceof ApiError ? err.message : '';
  if (text === 'Username already exists') return 'Пользователь с таким именем уже существует.';
  if (text === 'Email already exists') return 'Пользователь с такой почтой уже зарегистрирован.';
  return text || 'Произошла ошибка';
}

export default function AdminUsersPage() {
  useTitle('Админ-панель: пользователи');
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { user: me } = useAuth();
  const list = useQuery({ queryKey: ADMIN_USERS_KEY, queryFn: fetchUsers });
  const [draft, setDraft] = useState<Draft | null>(null);
  const [formError, setFormError] = useState('');

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ADMIN_USERS_KEY });
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
    // The admin may have changed their own name, role or balance.
    void queryClient.invalidateQueries({ queryKey: ME_KEY });
  };

  const save = useMutation({
    mutationFn: async (d: Draft) => {
      const balance = Number(d.balance.trim().replace(',', '.'));
      const fields = { username: d.username.trim(), email: d.email.trim(), is_admin: d.is_admin };
      if (d.id === null) {
        await register({ ...fields, balance, password: d.password });
        return;
      }
      // An untouched balance is not sent: the player may have spent money since the modal opened.
      await updateUser(d.id, { ...fields, ...(d.balance === d.shownBalance ? {} : { balance }), ...(d.password ? { password: d.password } : {}) });
    },
    onSuccess: (_r, d) => {
      notify('success', d.id === null ? 'Пользователь добавлен!' : 'Пользователь обновлён!');
      setDraft(null);
      refresh();
    },
    onError: (err) => {
      const text = errorText(err);
      setFormError(text);
      notify('danger', text);
    },
  });

  const remove = useMutation({
    mutationFn: (u: AdminUser) => deleteUser(u.id),
    onSuccess: () => notify('success', 'Пользователь удалён!'),
    onError: (err) => notify('danger', errorText(err)),
    onSettled: refresh,
  });

  const open = (d: Draft) => {
    setFormError('');
    setDraft(d);
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    let problem = '';
    const balance = Number(draft.balance.trim().replace(',', '.'));
    if (!draft.username.trim() || !draft.email.trim()) problem = 'Заполните имя пользователя и почту';
    else if (draft.balance.trim() === '' || !Number.isFinite(balance)) problem = 'Укажите баланс числом';
    else if (balance < 0) problem = 'Баланс не может быть отрицательным';
    if (problem) {
      setFormError(problem);
      notify('danger', problem);
      return;
    }
    save.mutate(draft);
  }

  const set = (key: 'username' | 'email' | 'password' | 'balance') => (e: { target: { value: string } }) => setDraft((d) => (d ? { ...d, [key]: e.target.value } : d));

  return (
    <section className="stack" aria-labelledby="admin-users-heading">
      <div className="admin-section-head">
        <h2 id="admin-users-heading">Пользователи</h2>
        <button type="button" className="btn btn-primary" onClick={() => open(EMPTY)}>
          Добавить пользователя
        </button>
      </div>

      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <Empty>Не удалось загрузить пользователей. Обновите страницу.</Empty>
      ) : list.data.length === 0 ? (
        <Empty>Пользователей пока нет</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table admin-table">
            <thead>
              <tr>
                <th className="num">ID</th>
                <th>Имя</th>
                <th>Почта</th>
                <th>Админ</th>
                <th className="num">Баланс</th>
                <th>Действия</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((u) => (
                <tr key={u.id} data-testid={`user-row-${u.username}`}>
                  <td className="num">{u.id}</td>
                  <td>{u.username}</td>
                  <td className="clip">{u.email}</td>
                  <td>{u.is_admin ? 'Да' : 'Нет'}</td>
                  <td className="num">{formatRub(u.balance)}</td>
                  <td>
                    <div className="admin-actions">
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={`Изменить пользователя ${u.username}`}
                        onClick={() => open({ id: u.id, username: u.username, email: u.email, password: '', balance: String(u.balance), shownBalance: String(u.balance), is_admin: u.is_admin })}
                      >
                        Изменить
                      </button>
                      <button
                        type="button"
                        className="btn btn-small btn-danger"
                        aria-label={`Удалить пользователя ${u.username}`}
                        disabled={remove.isPending}
                        onClick={() => {
                          const self = me?.id === u.id ? ' Это ваш собственный аккаунт.' : '';
                          if (window.confirm(`Удалить пользователя ${u.username}? Его покупки и история баланса сохранятся.${self}`)) remove.mutate(u);
                        }}
                      >
                        Удалить
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Modal open={draft !== null} title={draft?.id ? `Пользователь ${draft.username}` : 'Новый пользователь'} onClose={() => setDraft(null)}>
        {draft && (
          <form className="form" onSubmit={submit} noValidate>
            <Field label="Имя пользователя" name="username" autoComplete="off" value={draft.username} onChange={set('username')} required hint="3–16 латинских букв, цифр или «_»." />
            <Field label="Почта" name="email" type="email" autoComplete="off" value={draft.email} onChange={set('email')} required />
            <Field
              label="Пароль"
              name="password"
              type="password"
              autoComplete="new-password"
              value={draft.password}
              onChange={set('password')}
              hint={draft.id === null ? 'Не короче 8 символов.' : 'Оставьте пустым, чтобы не менять. Новый пароль завершит все сеансы пользователя.'}
            />
            <Field label="Баланс, ₽" name="balance" type="number" inputMode="decimal" min={0} step="0.01" value={draft.balance} onChange={set('balance')} required />
            <label className="checkbox">
              <input type="checkbox" name="is_admin" checked={draft.is_admin} onChange={(e) => setDraft((d) => (d ? { ...d, is_admin: e.target.checked } : d))} />
              Администратор
            </label>
            {formError && (
              <p className="notice notice-danger form-error" role="alert">
                {formError}
              </p>
            )}
            <div className="form-actions">
              <button type="button" className="btn" onClick={() => setDraft(null)}>
                Отмена
              </button>
              <button type="submit" className="btn btn-primary" disabled={save.isPending}>
                {save.isPending ? 'Сохраняем…' : 'Сохранить'}
              </button>
            </div>
          </form>
        )}
      </Modal>
    </section>
  );
}
