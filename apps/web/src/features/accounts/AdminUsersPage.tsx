import { AdminUserUpdateBody, RegisterBody, type AdminUser } from '@kubik/contract';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud } from '../../components/admin/useCrud.ts';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, MoneyField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatRub } from '../../lib/format.ts';
import { ME_KEY, useAuth } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { ADMIN_USERS_KEY, deleteUser, fetchUsers, updateUser } from './admin-api.ts';
import { register } from './api.ts';
import { accountError } from './errors.ts';

type Body = AdminUserUpdateBody;

export default function AdminUsersPage() {
  useTitle('Админ-панель: пользователи');
  const { user: me } = useAuth();
  const crud = useCrud<AdminUser, Body>({
    queryKey: ADMIN_USERS_KEY,
    list: fetchUsers,
    // The admin may have changed their own name, role or balance.
    refresh: [ADMIN_USERS_KEY, ME_KEY],
    create: (body) => register(body as RegisterBody).catch((err: unknown) => Promise.reject(accountError(err))),
    update: (user, body) => updateUser(user.id, body).catch((err: unknown) => Promise.reject(accountError(err))),
    remove: (user) => deleteUser(user.id),
    texts: {
      created: 'Пользователь добавлен!',
      updated: 'Пользователь обновлён!',
      removed: 'Пользователь удалён!',
      saveFailed: (err) => err.message || 'Произошла ошибка',
      removeFailed: (err) => err.message || 'Произошла ошибка',
      confirmRemove: (u) => `Удалить пользователя ${u.username}? Его покупки и история баланса сохранятся.${me?.id === u.id ? ' Это ваш собственный аккаунт.' : ''}`,
    },
  });

  const columns: Column<AdminUser>[] = [
    { header: 'ID', cell: (u) => u.id, kind: 'num' },
    { header: 'Имя', cell: (u) => u.username, kind: 'main' },
    { header: 'Почта', cell: (u) => u.email, kind: 'clip' },
    { header: 'Админ', cell: (u) => (u.is_admin ? 'Да' : 'Нет') },
    { header: 'Баланс', cell: (u) => formatRub(u.balance), kind: 'num' },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (u) => <RowActions what={`пользователя ${u.username}`} onEdit={() => crud.openEdit(u)} onDelete={() => crud.remove(u)} busy={crud.removing} />,
    },
  ];

  return (
    <AdminSection
      title="Пользователи"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Добавить пользователя
        </button>
      }
    >
      <QueryState query={crud.list} error="Не удалось загрузить пользователей" empty="Пользователей пока нет">
        {(users) => <DataTable label="Пользователи" rows={users} columns={columns} rowKey={(u) => u.id} rowProps={(u) => ({ 'data-testid': `user-row-${u.username}` })} />}
      </QueryState>
      <Modal open={crud.editing !== undefined} title={crud.editing ? `Пользователь ${crud.editing.username}` : 'Новый пользователь'} onClose={crud.close}>
        {crud.editing !== undefined && <UserForm key={crud.editing?.id ?? 'new'} user={crud.editing} onSave={crud.save} onCancel={crud.close} />}
      </Modal>
    </AdminSection>
  );
}

/** A new user is registered (RegisterBody: a password is required); an edit sends only what changed. */
function UserForm({ user, onSave, onCancel }: { user: AdminUser | null; onSave: (body: Body) => Promise<void>; onCancel: () => void }) {
  const form = useSchemaForm<Body, Body>(user ? AdminUserUpdateBody : RegisterBody, {
    defaultValues: { username: user?.username ?? '', email: user?.email ?? '', password: '', balance: user?.balance ?? 0, is_admin: user?.is_admin ?? false },
  });
  function save({ balance, password, ...rest }: Body) {
    // An untouched balance is not sent: the player may have spent money since the form opened.
    return onSave({ ...rest, ...(balance === user?.balance ? {} : { balance }), ...(password ? { password } : {}) });
  }
  return (
    <Form form={form} onSubmit={save}>
      <TextField name="username" label="Имя пользователя" autoComplete="off" hint="3–16 латинских букв, цифр или «_»." />
      <TextField name="email" label="Почта" type="email" autoComplete="off" />
      <TextField
        name="password"
        label="Пароль"
        type="password"
        autoComplete="new-password"
        hint={user ? 'Оставьте пустым, чтобы не менять. Новый пароль завершит все сеансы пользователя.' : 'Не короче 8 символов.'}
      />
      <MoneyField name="balance" label="Баланс, ₽" />
      <CheckboxField name="is_admin" label="Администратор" />
      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}
