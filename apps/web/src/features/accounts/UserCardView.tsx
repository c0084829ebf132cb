import { useConfirm } from '../../components/useConfirm.tsx';
import {
  AdminNoticeBody,
  BalanceChangeBody,
  DELIVERY_STATE_TEXT,
  PAYMENT_PROVIDER_TEXT,
  PAYMENT_STATUS_TEXT,
  type AdminUser,
  type DeliveryState,
  type PaymentProvider,
  type PaymentStatus,
  type UserCard,
} from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { z } from 'zod';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { MoneyField, SelectField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDate, formatDateTime, formatRub } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { ME_KEY } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_USERS_KEY, changeBalance, sendNotice, fetchUserCard, resetTwoFactor, userCardKey } from './admin-api.ts';

const REASON_TEXT: Record<string, string> = {
  adjustment: 'Изменение администратором',
  purchase: 'Покупка',
  refund: 'Возврат',
  topup: 'Пополнение',
  bonus: 'Бонус',
  topup_refund: 'Возврат пополнения',
  vote_reward: 'Награда за голос',
  vote_prize: 'Приз за голоса',
  referral_reward: 'Реферальная награда',
};

/**
 * A player's card (Админ-панель → Пользователи → имя): the account, balance changes, orders,
 * top-ups, privileges, the balance history and open sessions. `actions` are the card's further
 * buttons (edit, delete; a ban dialog can be added there too) — each gets the account.
 */
export function UserCardView({ id, actions }: { id: number; actions: (user: AdminUser) => ReactNode }) {
  const card = useQuery({ queryKey: userCardKey(id), queryFn: () => fetchUserCard(id) });
  return (
    <QueryState query={card} error="Не удалось загрузить карточку игрока" isEmpty={() => false}>
      {(c) => <CardBody card={c} actions={actions(c.user)} />}
    </QueryState>
  );
}

function CardBody({ card, actions }: { card: UserCard; actions: ReactNode }) {
  const u = card.user;
  return (
    <div className="stack user-card" data-testid="user-card">
      <dl className="user-card-facts">
        <Fact term="Номер">{u.id}</Fact>
        <Fact term="Почта">
          {u.email} ·{' '}
          {u.email_confirmed ? (
            <span className="badge badge-success">подтверждена</span>
          ) : (
            <span className="badge badge-warning">не подтверждена</span>
          )}
        </Fact>
        <Fact term="Зарегистрирован">{formatDate(u.created_at)}</Fact>
        <Fact term="Роль">{u.is_admin ? 'Администратор' : 'Пользователь'}</Fact>
        <Fact term="Баланс">
          <strong data-testid="user-card-balance">{formatRub(u.balance)}</strong>
        </Fact>
        {card.two_factor !== undefined && (
          <Fact term="Двухфакторная защита">{card.two_factor ? <span className="badge badge-success">включена</span> : 'не включена'}</Fact>
        )}
        <Fact term="UUID в игре">
          <code className="user-card-uuid">{card.uuid}</code>
        </Fact>
      </dl>
      {/* Every action on the account stands here, in one row. */}
      <div className="admin-actions user-card-actions" aria-label="Действия с аккаунтом" role="group">
        {actions}
        {card.two_factor && <ResetTwoFactor user={u} />}
      </div>

      <BalanceChange user={u} />
      <SendNotice user={u} />

      <CardSection title="Заказы" empty="Заказов нет" rows={card.orders} columns={ORDER_COLUMNS} rowKey={(o) => o.id} />
      {card.payments && (
        <CardSection title="Пополнения" empty="Пополнений нет" rows={card.payments} columns={PAYMENT_COLUMNS} rowKey={(p) => p.id} />
      )}
      {card.privileges && (
        <CardSection
          title="Привилегии"
          empty="Привилегий нет"
          rows={card.privileges}
          columns={PRIVILEGE_COLUMNS}
          rowKey={(p) => `${p.title}-${p.ends_at}`}
        />
      )}
      <CardSection title="Операции по балансу" empty="Операций нет" rows={card.ledger} columns={LEDGER_COLUMNS} rowKey={(l) => l.id} />
      <CardSection
        title="Открытые сеансы"
        empty="Открытых сеансов нет"
        rows={card.sessions}
        columns={SESSION_COLUMNS}
        rowKey={(s) => `${s.created_at}-${s.ip}-${s.user_agent}`}
      />
    </div>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function CardSection<T>({
  title,
  empty,
  rows,
  columns,
  rowKey,
}: {
  title: string;
  empty: string;
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
}) {
  return (
    <section className="stack user-card-section">
      <h3>
        {title} {rows.length > 0 && <span className="muted">({rows.length})</span>}
      </h3>
      {rows.length === 0 ? <p className="muted">{empty}</p> : <DataTable label={title} rows={rows} columns={columns} rowKey={rowKey} />}
    </section>
  );
}

type Order = UserCard['orders'][number];
type Payment = NonNullable<UserCard['payments']>[number];
type Privilege = NonNullable<UserCard['privileges']>[number];
type Ledger = UserCard['ledger'][number];
type Session = UserCard['sessions'][number];

const ORDER_COLUMNS: Column<Order>[] = [
  { header: 'Товар', cell: (o) => (o.quantity > 1 ? `${o.item_name} ×${o.quantity}` : o.item_name), kind: 'main' },
  { header: 'Сумма', cell: (o) => formatRub(o.total), kind: 'num' },
  { header: 'Выдача', cell: (o) => (o.delivery ? (DELIVERY_STATE_TEXT[o.delivery as DeliveryState] ?? o.delivery) : '—') },
  { header: 'Когда', cell: (o) => formatDateTime(o.created_at) },
];
const PAYMENT_COLUMNS: Column<Payment>[] = [
  { header: 'Сумма', cell: (p) => formatRub(p.amount), kind: 'main' },
  { header: 'Состояние', cell: (p) => PAYMENT_STATUS_TEXT[p.status as PaymentStatus] ?? p.status },
  { header: 'Касса', cell: (p) => (p.provider ? (PAYMENT_PROVIDER_TEXT[p.provider as PaymentProvider] ?? p.provider) : '—') },
  { header: 'Когда', cell: (p) => formatDateTime(p.created_at) },
];
const PRIVILEGE_COLUMNS: Column<Privilege>[] = [
  { header: 'Привилегия', cell: (p) => p.title, kind: 'main' },
  {
    header: 'Состояние',
    cell: (p) =>
      p.active ? <span className="badge badge-success">действует</span> : <span className="badge badge-neutral">закончилась</span>,
  },
  { header: 'До', cell: (p) => (p.ends_at ? formatDateTime(p.ends_at) : 'навсегда') },
];
const LEDGER_COLUMNS: Column<Ledger>[] = [
  {
    header: 'Сумма',
    cell: (l) => (
      <span
        className={l.amount < 0 ? 'amount-minus' : 'amount-plus'}
      >{`${l.amount > 0 ? '+' : l.amount < 0 ? '−' : ''}${formatRub(Math.abs(l.amount))}`}</span>
    ),
    kind: 'main',
  },
  { header: 'Операция', cell: (l) => REASON_TEXT[l.reason] ?? l.reason },
  { header: 'Комментарий', cell: (l) => l.note ?? '—', kind: 'clip' },
  { header: 'Кто', cell: (l) => l.author ?? 'система' },
  { header: 'Когда', cell: (l) => formatDateTime(l.created_at) },
];
const SESSION_COLUMNS: Column<Session>[] = [
  { header: 'Устройство', cell: (s) => s.user_agent ?? 'неизвестно', kind: 'clip' },
  { header: 'IP', cell: (s) => s.ip ?? '—' },
  { header: 'Вход', cell: (s) => formatDateTime(s.created_at) },
  { header: 'Истекает', cell: (s) => formatDateTime(s.expires_at) },
];

/** «+ / − сумма» with the server's own rules for the amount and the comment. */
const BalanceForm = z.object({
  sign: z.enum(['+', '-'], { error: 'Выберите: начислить или списать' }),
  amount: z
    .number({ error: 'Введите сумму' })
    .finite('Введите сумму')
    .positive('Сумма должна быть больше нуля')
    .max(100_000_000, 'Слишком большая сумма')
    .refine((v) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6, 'Не больше двух знаков после запятой (копейки)'),
  comment: BalanceChangeBody.shape.comment,
});
type BalanceFormIn = z.input<typeof BalanceForm>;
type BalanceFormOut = z.output<typeof BalanceForm>;

/** For a player who lost both the phone and the recovery codes: after checking it is really them. */
function ResetTwoFactor({ user }: { user: AdminUser }) {
  const { confirm, dialog } = useConfirm();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const reset = useMutation({
    mutationFn: () => resetTwoFactor(user.id),
    onSuccess: (res) => notify('success', res.message),
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось сбросить двухфакторную защиту'),
    onSettled: () => {
      for (const key of [userCardKey(user.id), AUDIT_KEY]) void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  return (
    <>
      {dialog}
      <button
        type="button"
        className="btn btn-small btn-danger"
        disabled={reset.isPending}
        onClick={async () => {
          if (
            await confirm(
              `Сбросить двухфакторную защиту игрока ${user.username}? Он сможет войти только по паролю, его сеансы завершатся. Делайте это, только убедившись, что просит сам игрок.`,
              { confirmLabel: 'Сбросить', danger: true },
            )
          )
            reset.mutate();
        }}
      >
        Сбросить двухфакторную защиту
      </button>
    </>
  );
}

type NoticeIn = z.input<typeof AdminNoticeBody>;

/** A message from the administration into the player's bell (docs/notices.md). */
function SendNotice({ user }: { user: AdminUser }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm<NoticeIn, AdminNoticeBody>(AdminNoticeBody, { defaultValues: { title: '', body: '' } });
  const mutation = useMutation({
    mutationFn: (body: AdminNoticeBody) => sendNotice(user.id, body),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: AUDIT_KEY }),
  });
  async function save(body: AdminNoticeBody) {
    try {
      const res = await mutation.mutateAsync(body);
      notify('success', res.message);
      form.reset({ title: '', body: '' });
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось отправить сообщение');
      throw err;
    }
  }
  return (
    <section className="stack user-card-section" aria-labelledby="send-notice-h">
      <h3 id="send-notice-h">Сообщение игроку</h3>
      <Form form={form} onSubmit={save} className="form">
        <TextField name="title" label="Заголовок" autoComplete="off" />
        <TextAreaField name="body" label="Текст" hint="Необязательно. Игрок увидит сообщение в колокольчике." rows={3} />
        <FormErrors />
        <FormActions submitLabel="Отправить" pendingLabel="Отправляем…" />
      </Form>
    </section>
  );
}

function BalanceChange({ user }: { user: AdminUser }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm<BalanceFormIn, BalanceFormOut>(BalanceForm, { defaultValues: { sign: '+', comment: '' } as BalanceFormIn });
  const mutation = useMutation({
    mutationFn: (body: BalanceChangeBody) => changeBalance(user.id, body),
    onSettled: () => {
      for (const key of [ADMIN_USERS_KEY, AUDIT_KEY, ME_KEY]) void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  async function save({ sign, amount, comment }: BalanceFormOut) {
    try {
      const res = await mutation.mutateAsync({ amount: sign === '-' ? -amount : amount, comment });
      notify('success', `${res.message}: ${formatRub(res.balance)}`);
      form.reset({ sign: '+', comment: '' } as BalanceFormIn);
    } catch (err) {
      notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось изменить баланс');
      throw err;
    }
  }
  return (
    <section className="stack user-card-section" aria-labelledby="balance-change-h">
      <h3 id="balance-change-h">Изменить баланс</h3>
      <Form form={form} onSubmit={save} className="form balance-form">
        <SelectField
          name="sign"
          label="Действие"
          options={[
            { value: '+', label: '+ Начислить' },
            { value: '-', label: '− Списать' },
          ]}
        />
        <MoneyField name="amount" label="Сумма, ₽" hint="Копейки через запятую: 35,50" />
        <TextField
          name="comment"
          label="Комментарий"
          hint="Обязательно: за что изменение. Виден в истории баланса и журнале."
          autoComplete="off"
        />
        <FormErrors />
        <FormActions submitLabel="Провести" pendingLabel="Проводим…" />
      </Form>
    </section>
  );
}
