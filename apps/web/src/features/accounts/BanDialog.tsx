import { useConfirm } from '../../components/useConfirm.tsx';
import { BanBody, type AdminUser } from '@kubik/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useWatch } from 'react-hook-form';
import { z } from 'zod';
import { Badge } from '../../components/Badge.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { SelectField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_USERS_KEY } from './admin-api.ts';
import { banUser, unbanUser } from './bans-api.ts';
import './bans.css';

const DAY = 86_400_000;
const TERMS = [
  { value: '1', label: '1 день' },
  { value: '3', label: '3 дня' },
  { value: '7', label: '7 дней' },
  { value: '30', label: '30 дней' },
  { value: '365', label: '1 год' },
  { value: 'forever', label: 'Навсегда' },
  { value: 'date', label: 'До даты…' },
] as const;

const BanForm = z
  .object({
    reason: BanBody.shape.reason,
    term: z.enum(TERMS.map((t) => t.value) as [string, ...string[]]),
    date: z.string(),
  })
  .superRefine((v, ctx) => {
    if (v.term !== 'date') return;
    const at = new Date(v.date).getTime();
    if (!v.date || Number.isNaN(at)) ctx.addIssue({ code: 'custom', path: ['date'], message: 'Выберите дату и время окончания' });
    else if (at <= Date.now()) ctx.addIssue({ code: 'custom', path: ['date'], message: 'Дата окончания должна быть в будущем' });
  });
type BanFormValues = z.infer<typeof BanForm>;

function untilOf(v: BanFormValues): number | null {
  if (v.term === 'forever') return null;
  if (v.term === 'date') return new Date(v.date).getTime();
  return Date.now() + Number(v.term) * DAY;
}

/** «навсегда» / «до 01.12.2026, 14:05» */
export function banTerm(until: number | null): string {
  return until === null ? 'навсегда' : `до ${formatDateTime(until)}`;
}

/** The ban state of a player in the admin's list: a badge with the reason as its title. */
export function BanBadge({ user }: { user: AdminUser }) {
  if (!user.ban) return null;
  return (
    <span title={`Причина: ${user.ban.reason}`} data-testid={`ban-state-${user.username}`}>
      <Badge tone="danger">Заблокирован {banTerm(user.ban.until)}</Badge>
    </span>
  );
}

/**
 * «Заблокировать» (opens the dialog) or «Разблокировать» for one player of the admin's list, with
 * the state. Administrators cannot be banned (the server refuses it too): they get a dash.
 */
export function BanControls({ user, self }: { user: AdminUser; self: boolean }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const notify = useNotify();
  const { confirm, dialog } = useConfirm();
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([client.invalidateQueries({ queryKey: ADMIN_USERS_KEY }), client.invalidateQueries({ queryKey: AUDIT_KEY })]);

  if (user.is_admin || self) return <span className="muted">—</span>;

  async function lift() {
    if (
      !(await confirm(`Снять блокировку с ${user.username}? На серверах, где задана команда разбана, она будет выполнена.`, {
        confirmLabel: 'Снять блокировку',
      }))
    )
      return;
    setBusy(true);
    try {
      const res = await unbanUser(user.id);
      notify('success', res.message);
      await refresh();
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось снять блокировку');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="ban-controls">
      {dialog}
      <BanBadge user={user} />
      {user.ban ? (
        <>
          <button type="button" className="btn btn-small" onClick={() => setOpen(true)} aria-label={`Изменить блокировку ${user.username}`}>
            Изменить
          </button>
          <button type="button" className="btn btn-small" onClick={lift} disabled={busy} aria-label={`Разблокировать ${user.username}`}>
            {busy ? 'Снимаем…' : 'Разблокировать'}
          </button>
        </>
      ) : (
        <button
          type="button"
          className="btn btn-small btn-danger"
          onClick={() => setOpen(true)}
          aria-label={`Заблокировать ${user.username}`}
        >
          Заблокировать
        </button>
      )}
      <Modal open={open} title={user.ban ? `Блокировка ${user.username}` : `Заблокировать ${user.username}`} onClose={() => setOpen(false)}>
        {open && (
          <BanDialogForm
            user={user}
            onCancel={() => setOpen(false)}
            onDone={async (message) => {
              setOpen(false);
              notify('success', message);
              await refresh();
            }}
          />
        )}
      </Modal>
    </div>
  );
}

/** The ban form: reason and term; sessions and game logins end at once, in-game commands go where set. */
export function BanDialogForm({
  user,
  onCancel,
  onDone,
}: {
  user: AdminUser;
  onCancel: () => void;
  onDone: (message: string) => void | Promise<void>;
}) {
  const form = useSchemaForm(BanForm, {
    defaultValues: {
      reason: user.ban?.reason ?? '',
      term: user.ban ? (user.ban.until === null ? 'forever' : 'date') : '7',
      date: user.ban?.until ? localInput(user.ban.until) : '',
    },
  });
  const term = useWatch({ control: form.control, name: 'term' });
  async function save(v: BanFormValues) {
    const until = untilOf(v);
    const res = await banUser(user.id, { reason: v.reason, until });
    await onDone(res.message);
  }
  return (
    <Form form={form} onSubmit={save}>
      <p className="hint">
        Игрок сразу выйдет на сайте и в лаунчере, а вход будет отвечать причиной и сроком. На серверах, где задана команда бана, она будет
        выполнена.
      </p>
      <TextField name="reason" label="Причина" maxLength={200} autoComplete="off" hint="Её увидит игрок при входе и в профиле." />
      <SelectField name="term" label="Срок" options={TERMS} />
      {term === 'date' && <TextField name="date" label="До (дата и время)" type="datetime-local" />}
      <FormErrors />
      <FormActions onCancel={onCancel} submitLabel={user.ban ? 'Сохранить' : 'Заблокировать'} pendingLabel="Сохраняем…" />
    </Form>
  );
}

/** Epoch ms as a datetime-local input's value, in the browser's time. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
