import { useConfirm } from '../../components/useConfirm.tsx';
import { BAN_NOTE_MAX, BAN_REASON_MAX, type AdminUser, type BanRecord } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useWatch } from 'react-hook-form';
import { Badge } from '../../components/Badge.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { SelectField, TextField } from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_USERS_KEY } from './admin-api.ts';
import { activeBanKey, banUser, fetchActiveBan, unbanUser } from './bans-api.ts';
import { BanForm, banBodyOf, TERMS, type BanFormValues } from './ban-form.ts';
import './bans.css';

/** «навсегда» / «до 01.12.2026, 14:05» */
export function banTerm(until: number | null): string {
  return until === null ? 'навсегда' : `до ${formatDateTime(until)}`;
}

/** The ban state of a player in the admin's list: a badge with the public reason as its title (the note is in the dialog). */
export function BanBadge({ user }: { user: AdminUser }) {
  if (!user.ban) return null;
  return (
    <span title={`Причина для игрока: ${user.ban.reason || 'не указана'}`} data-testid={`ban-state-${user.username}`}>
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
    Promise.all([
      client.invalidateQueries({ queryKey: ADMIN_USERS_KEY }),
      client.invalidateQueries({ queryKey: AUDIT_KEY }),
      client.invalidateQueries({ queryKey: activeBanKey(user.id) }),
    ]);

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

/**
 * The ban form: the public reason, the internal note and the term; sessions and game logins end
 * at once, in-game commands go where set. Changing a ban first loads its note (only the bans
 * history has it: the users list carries the public reason alone).
 */
export function BanDialogForm({
  user,
  onCancel,
  onDone,
}: {
  user: AdminUser;
  onCancel: () => void;
  onDone: (message: string) => void | Promise<void>;
}) {
  const current = useQuery({ queryKey: activeBanKey(user.id), queryFn: () => fetchActiveBan(user.id), enabled: !!user.ban });
  if (!user.ban) return <BanFields user={user} current={null} onCancel={onCancel} onDone={onDone} />;
  return (
    <QueryState query={current} loading="Загружаем блокировку…" error="Не удалось загрузить блокировку" isEmpty={() => false}>
      {(record) => <BanFields user={user} current={record} onCancel={onCancel} onDone={onDone} />}
    </QueryState>
  );
}

function BanFields({
  user,
  current,
  onCancel,
  onDone,
}: {
  user: AdminUser;
  current: BanRecord | null;
  onCancel: () => void;
  onDone: (message: string) => void | Promise<void>;
}) {
  const until = current ? current.until : (user.ban?.until ?? null);
  const form = useSchemaForm(BanForm, {
    defaultValues: {
      reason: current?.reason ?? user.ban?.reason ?? '',
      note: current?.note ?? '',
      term: user.ban ? (until === null ? 'forever' : 'date') : '7',
      date: until ? localInput(until) : '',
    },
  });
  const term = useWatch({ control: form.control, name: 'term' });
  async function save(v: BanFormValues) {
    const res = await banUser(user.id, banBodyOf(v));
    await onDone(res.message);
  }
  return (
    <Form form={form} onSubmit={save}>
      <p className="hint">
        Игрок сразу выйдет на сайте и в лаунчере, а вход будет отвечать сроком и причиной для игрока. На серверах, где задана команда бана,
        она будет выполнена.
      </p>
      <TextField
        name="reason"
        label="Причина для игрока (видна всем)"
        maxLength={BAN_REASON_MAX}
        autoComplete="off"
        hint="Её увидят игрок при входе, в уведомлении и в игре и все в его профиле. Можно оставить пустой."
      />
      <TextField
        name="note"
        label="Внутренняя заметка (видна только персоналу)"
        maxLength={BAN_NOTE_MAX}
        autoComplete="off"
        hint="За что блокировка и чем это подтверждено. Игрок её не увидит: она остаётся в истории блокировок и журнале."
      />
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
