import { AdminUserUpdateBody, RegisterBody, type AdminUser, type AdminUserPage } from '@kubik/contract';
import { useEffect, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud } from '../../components/admin/useCrud.ts';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, MoneyField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDate, formatRub, plural } from '../../lib/format.ts';
import { ME_KEY, useAuth } from '../../providers/auth.tsx';
import { useTitle } from '../../providers/title.ts';
import { ADMIN_USERS_KEY, ADMIN_USERS_PER_PAGE, deleteUser, fetchUsersPage, updateUser } from './admin-api.ts';
import { register } from './api.ts';
import { accountError } from './errors.ts';
import { UserCardView } from './UserCardView.tsx';
import './accounts.css';
import { BanControls } from './BanDialog.tsx';
import { BanCommandsPanel } from './BanCommandsPanel.tsx';
import { FieldShell } from '../../components/form/FieldShell.tsx';
import { Pager } from '../../components/Pager.tsx';

type Body = AdminUserUpdateBody;

/** ?user=ID opens that player's card (the overview links here). */
function userFromAddress(): number | null {
  const id = Number(new URLSearchParams(window.location.search).get('user'));
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Админ-панель → Пользователи: searched and paged on the server, a card per player. */
export default function AdminUsersPage() {
  useTitle('Админ-панель: пользователи');
  const { user: me } = useAuth();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [cardId, setCardId] = useState<number | null>(userFromAddress);

  // Search as the admin types, once they pause.
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setQ(typed.trim());
      setPage(1);
    }, 300);
    return () => window.clearTimeout(timer);
  }, [typed]);

  const crud = useCrud<AdminUser, Body, AdminUserPage>({
    queryKey: [...ADMIN_USERS_KEY, 'page', q, page],
    list: () => fetchUsersPage(q, page),
    keepPrevious: true,
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
      confirmRemove: (u) =>
        `Удалить пользователя ${u.username}? Его покупки и история баланса сохранятся.${me?.id === u.id ? ' Это ваш собственный аккаунт.' : ''}`,
    },
  });

  const openCard = (id: number | null) => {
    setCardId(id);
    const url = new URL(window.location.href);
    if (id) url.searchParams.set('user', String(id));
    else url.searchParams.delete('user');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}`);
  };

  const columns: Column<AdminUser>[] = [
    { header: 'ID', cell: (u) => u.id, kind: 'num' },
    {
      header: 'Имя',
      kind: 'main',
      cell: (u) => (
        <button type="button" className="link-button user-open" onClick={() => openCard(u.id)} aria-label={`Карточка игрока ${u.username}`}>
          {u.username}
        </button>
      ),
    },
    { header: 'Почта', cell: (u) => u.email, kind: 'clip' },
    { header: 'Подтверждена', cell: (u) => (u.email_confirmed ? 'Да' : 'Нет') },
    { header: 'Админ', cell: (u) => (u.is_admin ? 'Да' : 'Нет') },
    { header: 'Баланс', cell: (u) => formatRub(u.balance), kind: 'num' },
    { header: 'Регистрация', cell: (u) => formatDate(u.created_at) },
    { header: 'Блокировка', cell: (u) => <BanControls user={u} self={me?.id === u.id} /> },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (u) => (
        <RowActions
          what={`пользователя ${u.username}`}
          onEdit={() => crud.openEdit(u)}
          onDelete={() => crud.remove(u)}
          busy={crud.removing}
        />
      ),
    },
  ];

  const data = crud.list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.per_page)) : 1;

  return (
    <AdminSection
      title="Пользователи"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Добавить пользователя
        </button>
      }
    >
      <FieldShell id="users-search" label="Поиск" className="admin-filter users-search">
        <input
          id="users-search"
          type="search"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          placeholder="Имя, почта или номер"
          autoComplete="off"
          maxLength={100}
        />
      </FieldShell>
      <QueryState
        query={crud.list}
        error="Не удалось загрузить пользователей"
        empty={q ? `Никого не нашлось по запросу «${q}»` : 'Пользователей пока нет'}
        isEmpty={(p) => p.users.length === 0}
      >
        {(p) => (
          <>
            <p className="muted users-count" aria-live="polite">
              {q ? 'Найдено' : 'Всего'}: {p.total} {plural(p.total, ['пользователь', 'пользователя', 'пользователей'])}
            </p>
            <DataTable
              label="Пользователи"
              rows={p.users}
              columns={columns}
              rowKey={(u) => u.id}
              rowProps={(u) => ({ 'data-testid': `user-row-${u.username}` })}
            />
          </>
        )}
      </QueryState>
      {data && (
        <Pager page={page} pages={pages} onPage={setPage} label="Страницы списка пользователей" previous="← Назад" next="Вперёд →" />
      )}
      <p className="visually-hidden">По {ADMIN_USERS_PER_PAGE} на странице.</p>

      <Modal open={cardId !== null} title="Карточка игрока" onClose={() => openCard(null)} wide>
        {cardId !== null && (
          <UserCardView
            id={cardId}
            actions={(u) => (
              // Further account actions (a ban dialog…) go beside these.
              <>
                <button type="button" className="btn btn-small" onClick={() => crud.openEdit(u)}>
                  Изменить данные
                </button>
                <BanControls user={u} self={me?.id === u.id} />
              </>
            )}
          />
        )}
      </Modal>
      {crud.dialog}
      <Modal
        open={crud.editing !== undefined}
        title={crud.editing ? `Пользователь ${crud.editing.username}` : 'Новый пользователь'}
        onClose={crud.close}
      >
        {crud.editing !== undefined && (
          <UserForm key={crud.editing?.id ?? 'new'} user={crud.editing} onSave={crud.save} onCancel={crud.close} />
        )}
      </Modal>
      <BanCommandsPanel />
    </AdminSection>
  );
}

/** A new user is registered (RegisterBody: a password is required); an edit sends only what changed. */
function UserForm({ user, onSave, onCancel }: { user: AdminUser | null; onSave: (body: Body) => Promise<void>; onCancel: () => void }) {
  const form = useSchemaForm<Body, Body>(user ? AdminUserUpdateBody : RegisterBody, {
    defaultValues: {
      username: user?.username ?? '',
      email: user?.email ?? '',
      password: '',
      balance: user?.balance ?? 0,
      is_admin: user?.is_admin ?? false,
    },
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
      <MoneyField
        name="balance"
        label="Баланс, ₽"
        hint={user ? 'Лучше менять через карточку игрока: «+ / − сумма» с комментарием.' : undefined}
      />
      <CheckboxField name="is_admin" label="Администратор" />
      <FormErrors />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}
