import { PERMISSION_LABELS, PERMISSIONS, StaffRoleBody, type StaffRole, type StaffRoleList } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable } from '../../components/admin/DataTable.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { fieldDescribedBy, FieldShell } from '../../components/form/FieldShell.tsx';
import { CheckboxField, FieldGroup, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useConfirm } from '../../components/useConfirm.tsx';
import { ApiError } from '../../lib/api.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { createRole, deleteRole, fetchRoles, findUsers, ROLES_KEY, setUserRole, updateRole } from './api.ts';

const permissionNames = (list: readonly string[]) =>
  list.length === 0 ? 'нет прав' : list.map((p) => PERMISSION_LABELS[p as keyof typeof PERMISSION_LABELS]?.label ?? p).join(', ');

/**
 * Админ-панель → Сотрудники: roles and who holds them. Everyone with the `roles`
 * permission sees them; only the owner creates, changes and removes roles and gives them out.
 */
export default function AdminStaffPage() {
  useTitle('Админ-панель: сотрудники');
  const { user } = useAuth();
  const owner = user?.is_admin ?? false;
  const query = useQuery({ queryKey: ROLES_KEY, queryFn: fetchRoles });
  const [editing, setEditing] = useState<StaffRole | 'new' | null>(null);
  return (
    <AdminSection
      title="Сотрудники и роли"
      actions={
        owner && (
          <button type="button" className="btn btn-primary btn-small" onClick={() => setEditing('new')}>
            Новая роль
          </button>
        )
      }
    >
      {!owner && <p className="muted">Роли и сотрудников меняет только владелец сайта.</p>}
      <QueryState query={query} error="Не удалось загрузить роли" isEmpty={() => false}>
        {(data) => <StaffTables data={data} owner={owner} onEdit={setEditing} />}
      </QueryState>
      <Modal open={editing !== null} title={editing === 'new' ? 'Новая роль' : 'Роль'} onClose={() => setEditing(null)} wide>
        {editing !== null && <RoleForm role={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
      </Modal>
    </AdminSection>
  );
}

function StaffTables({ data, owner, onEdit }: { data: StaffRoleList; owner: boolean; onEdit: (r: StaffRole) => void }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ROLES_KEY });
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
  };
  const roleOptions = [{ value: '', label: 'Без роли (игрок)' }, ...data.roles.map((r) => ({ value: String(r.id), label: r.name }))];
  async function assign(userId: number, username: string, value: string) {
    try {
      await setUserRole(userId, value === '' ? null : Number(value));
      notify('success', value === '' ? `${username} больше не сотрудник` : `${username}: роль изменена`);
      refresh();
    } catch (err) {
      notify('danger', err instanceof ApiError ? err.message : 'Не удалось изменить роль');
    }
  }
  return (
    <div className="stack">
      {dialog}
      <h3>Роли</h3>
      {data.roles.length === 0 ? (
        <p className="muted">Ролей пока нет. Создайте роль, например «Модератор» с правами «Блокировки» и «Игроки: просмотр».</p>
      ) : (
        <DataTable
          label="Роли"
          rows={data.roles}
          rowKey={(r) => r.id}
          columns={[
            { header: 'Роль', kind: 'main', cell: (r) => r.name },
            { header: 'Права', cell: (r) => permissionNames(r.permissions) },
            { header: 'Сотрудников', kind: 'num', cell: (r) => r.members },
            ...(owner
              ? [
                  {
                    header: 'Действия',
                    kind: 'actions' as const,
                    cell: (r: StaffRole) => (
                      <div className="row">
                        <button type="button" className="btn btn-small" onClick={() => onEdit(r)}>
                          Изменить
                        </button>
                        <button
                          type="button"
                          className="btn btn-small btn-danger"
                          onClick={async () => {
                            const yes = await confirm(
                              r.members > 0
                                ? `Удалить роль «${r.name}»? Её носители (${r.members}) станут обычными игроками.`
                                : `Удалить роль «${r.name}»?`,
                              { title: 'Удаление роли', confirmLabel: 'Удалить', danger: true },
                            );
                            if (!yes) return;
                            try {
                              await deleteRole(r.id);
                              notify('success', 'Роль удалена');
                              refresh();
                            } catch (err) {
                              notify('danger', err instanceof ApiError ? err.message : 'Не удалось удалить роль');
                            }
                          }}
                        >
                          Удалить
                        </button>
                      </div>
                    ),
                  },
                ]
              : []),
          ]}
        />
      )}
      <h3>Сотрудники</h3>
      <DataTable
        label="Сотрудники"
        rows={data.staff}
        rowKey={(s) => s.id}
        columns={[
          { header: 'Имя', kind: 'main', cell: (s) => s.username },
          {
            header: 'Роль',
            cell: (s) =>
              s.owner ? (
                'Владелец (все права)'
              ) : owner ? (
                <select
                  aria-label={`Роль ${s.username}`}
                  value={String(s.role_id ?? '')}
                  onChange={(e) => void assign(s.id, s.username, e.target.value)}
                >
                  {roleOptions.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              ) : (
                (s.role ?? '—')
              ),
          },
        ]}
      />
      {owner && data.roles.length > 0 && <AddStaff roles={data.roles} onAdded={refresh} />}
    </div>
  );
}

/** Gives a role to a player found by name. */
function AddStaff({ roles, onAdded }: { roles: StaffRole[]; onAdded: () => void }) {
  const notify = useNotify();
  const [name, setName] = useState('');
  const [roleId, setRoleId] = useState(String(roles[0]!.id));
  const [error, setError] = useState<string | null>(null);
  const ids = useId();
  return (
    <form
      className="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        const q = name.trim();
        if (!q) return setError('Введите имя игрока');
        try {
          const found = (await findUsers(q)).users.find((u) => u.username.toLowerCase() === q.toLowerCase());
          if (!found) return setError('Игрок с таким именем не найден');
          await setUserRole(found.id, Number(roleId));
          notify('success', `${found.username} теперь сотрудник`);
          setName('');
          onAdded();
        } catch (err) {
          setError(err instanceof ApiError ? err.message : 'Не удалось назначить роль');
        }
      }}
    >
      <h3>Назначить сотрудника</h3>
      <div className="row">
        <FieldShell id={`${ids}-name`} label="Имя игрока" error={error}>
          <input
            id={`${ids}-name`}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={fieldDescribedBy(`${ids}-name`, error)}
          />
        </FieldShell>
        <FieldShell id={`${ids}-role`} label="Роль">
          <select id={`${ids}-role`} value={roleId} onChange={(e) => setRoleId(e.target.value)}>
            {roles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </FieldShell>
        <button type="submit" className="btn btn-primary">
          Назначить
        </button>
      </div>
    </form>
  );
}

function RoleForm({ role, onDone }: { role: StaffRole | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const form = useSchemaForm(StaffRoleBody, { defaultValues: { name: role?.name ?? '', permissions: role?.permissions ?? [] } });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        if (role) await updateRole(role.id, body);
        else await createRole(body);
        void queryClient.invalidateQueries({ queryKey: ROLES_KEY });
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        notify('success', role ? 'Роль сохранена' : 'Роль создана');
        onDone();
      }}
    >
      <TextField name="name" label="Название" hint="Например: Модератор, Редактор, Бухгалтер" />
      <FieldGroup legend="Права">
        {PERMISSIONS.map((p) => (
          <CheckboxField key={p} name="permissions" value={p} label={PERMISSION_LABELS[p].label} hint={PERMISSION_LABELS[p].hint} />
        ))}
      </FieldGroup>
      <FormErrors />
      <FormActions onCancel={onDone} />
    </Form>
  );
}
