import { useConfirm } from '../../components/useConfirm.tsx';
import { AdminPrivilegeGrantBody, type AdminPrivilege, type DonateTier } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Form, FormActions, FormErrors, useSchemaForm, type ServerErrorRules } from '../../components/form/Form.tsx';
import { NumberField, SelectField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { DONATE_KEY, fetchTiers } from './api.ts';
import { ADMIN_PRIVILEGES_KEY, fetchAdminPrivileges, grantPrivilege, revokePrivilege, setPrivilegeEnd } from './privileges-api.ts';
import './donate.css';

const END_TEXT: Record<string, string> = { expired: 'Срок истёк', upgraded: 'Заменена более высокой', revoked: 'Снята администратором' };

/** `2026-12-23T10:00` for a datetime-local input, in the browser's time zone. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Админ-панель → Донат → «Выданные привилегии»: who holds which tier until when; grant by hand, move the end, revoke. */
export function AdminPrivileges() {
  const [onlyActive, setOnlyActive] = useState(true);
  const list = useQuery({ queryKey: [...ADMIN_PRIVILEGES_KEY, onlyActive], queryFn: () => fetchAdminPrivileges(onlyActive) });
  const tiers = useQuery({ queryKey: DONATE_KEY, queryFn: fetchTiers });
  const queryClient = useQueryClient();
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const [editing, setEditing] = useState<AdminPrivilege | null>(null);
  const reload = () => void queryClient.invalidateQueries({ queryKey: ADMIN_PRIVILEGES_KEY });
  const revoke = useMutation({
    mutationFn: (p: AdminPrivilege) => revokePrivilege(p.id),
    onSuccess: (answer) => (notify('success', answer.message), reload()),
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось снять привилегию'),
  });

  const columns: Column<AdminPrivilege>[] = [
    { header: 'ID', cell: (p) => p.id, kind: 'num' },
    { header: 'Игрок', cell: (p) => p.username, kind: 'main' },
    { header: 'Донат', cell: (p) => p.title },
    { header: 'Начало', cell: (p) => formatDateTime(p.starts_at) },
    { header: 'Окончание', cell: (p) => formatDateTime(p.ended_at ?? p.expires_at) },
    {
      header: 'Состояние',
      cell: (p) =>
        p.active ? (
          <Badge tone="success">Действует</Badge>
        ) : (
          <span className="muted">{p.end_reason ? END_TEXT[p.end_reason] : 'Ожидает окончания'}</span>
        ),
    },
    { header: 'Выдана', cell: (p) => (p.granted_by === null ? 'Покупка' : 'Вручную') },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (p) =>
        p.ended_at === null ? (
          <div className="admin-actions">
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Изменить окончание привилегии ${p.title} игрока ${p.username}`}
              onClick={() => setEditing(p)}
            >
              Срок
            </button>
            <button
              type="button"
              className="btn btn-small btn-danger"
              aria-label={`Снять привилегию ${p.title} у игрока ${p.username}`}
              disabled={revoke.isPending}
              onClick={async () => {
                if (
                  await confirm(`Снять привилегию ${p.title} у игрока ${p.username}? Команды снятия выполнятся в игре.`, {
                    confirmLabel: 'Снять',
                    danger: true,
                  })
                )
                  revoke.mutate(p);
              }}
            >
              Снять
            </button>
          </div>
        ) : null,
    },
  ];

  return (
    <AdminSection title="Выданные привилегии">
      {dialog}
      <GrantForm tiers={tiers.data ?? []} onGranted={reload} />
      <label className="checkbox">
        <input type="checkbox" checked={onlyActive} onChange={(e) => setOnlyActive(e.target.checked)} />
        Только незакончившиеся
      </label>
      <QueryState query={list} error="Не удалось загрузить привилегии" empty="Привилегий пока нет">
        {(rows) => <DataTable label="Привилегии" rows={rows} columns={columns} rowKey={(p) => p.id} />}
      </QueryState>
      <Modal open={editing !== null} title="Окончание привилегии" onClose={() => setEditing(null)}>
        {editing && (
          <EndForm
            key={editing.id}
            privilege={editing}
            onDone={() => {
              setEditing(null);
              reload();
            }}
          />
        )}
      </Modal>
    </AdminSection>
  );
}

/** The contract's rules; the tier comes from a select (text) and is a number on the wire. */
const Grant = AdminPrivilegeGrantBody.extend({ tier_id: z.coerce.number().pipe(AdminPrivilegeGrantBody.shape.tier_id) });
const GRANT_ERRORS: ServerErrorRules = { formText: (error) => error?.message || 'Не удалось выдать привилегию' };

function GrantForm({ tiers, onGranted }: { tiers: DonateTier[]; onGranted: () => void }) {
  const notify = useNotify();
  const form = useSchemaForm(Grant, { defaultValues: { username: '', tier_id: '', days: 30 } });

  async function grant(body: AdminPrivilegeGrantBody) {
    const p = await grantPrivilege(body);
    notify('success', `Привилегия ${p.title} выдана игроку ${p.username}`);
    form.setValue('username', '');
    onGranted();
  }

  return (
    <section className="grant-form stack" aria-labelledby="grant-form-title">
      <h3 id="grant-form-title">Выдать привилегию</h3>
      <Form form={form} onSubmit={grant} serverErrors={GRANT_ERRORS}>
        <div className="form-grid">
          <TextField name="username" label="Игрок" maxLength={32} autoComplete="off" />
          <SelectField
            name="tier_id"
            label="Донат"
            options={[{ value: '', label: 'Выберите донат' }, ...tiers.map((t) => ({ value: String(t.id), label: t.title }))]}
          />
          <NumberField name="days" label="Дней" />
        </div>
        <p className="muted">Тот же донат продлевается; более низкий действующий заменяется (без зачёта); при более высоком — отказ.</p>
        <FormErrors fields={false} />
        <FormActions submitLabel="Выдать" pendingLabel="Выдаём…" />
      </Form>
    </section>
  );
}

/** The end as typed in a datetime-local field (the browser's time zone), sent as epoch ms. */
const End = z.object({
  expires_at: z
    .string()
    .refine((v) => v !== '' && !Number.isNaN(new Date(v).getTime()), 'Укажите дату и время окончания')
    .transform((v) => new Date(v).getTime()),
});
const END_ERRORS: ServerErrorRules = { formText: (error) => error?.message || 'Не удалось изменить срок' };

function EndForm({ privilege, onDone }: { privilege: AdminPrivilege; onDone: () => void }) {
  const notify = useNotify();
  const form = useSchemaForm(End, { defaultValues: { expires_at: localInput(privilege.expires_at) } });

  async function save({ expires_at }: z.output<typeof End>) {
    const p = await setPrivilegeEnd(privilege.id, expires_at);
    notify('success', p.active ? 'Срок привилегии изменён' : 'Привилегия закончилась: команды снятия отправлены в игру');
    onDone();
  }

  return (
    <Form form={form} onSubmit={save} serverErrors={END_ERRORS}>
      <p>
        {privilege.username}: {privilege.title}
      </p>
      <TextField
        name="expires_at"
        label="Окончание"
        type="datetime-local"
        hint="Время в прошлом закончит привилегию сейчас: выполнятся команды снятия."
      />
      <FormErrors fields={false} />
      <FormActions submitLabel="Сохранить" pendingLabel="Сохраняем…">
        <button
          type="button"
          className="btn"
          onClick={() =>
            form.setValue('expires_at', localInput(Date.now()), { shouldDirty: true, shouldValidate: form.formState.isSubmitted })
          }
        >
          Закончить сейчас
        </button>
      </FormActions>
    </Form>
  );
}
