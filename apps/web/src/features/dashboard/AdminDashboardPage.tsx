import {
  DASHBOARD_WAITING_LONG_MIN,
  PAYMENT_PROVIDER_TEXT,
  PAYMENT_STATUS_TEXT,
  type AdminDashboard,
  type DashboardDelivery,
  type DashboardOrder,
  type DashboardPayment,
  type PaymentProvider,
  type PaymentStatus,
} from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime, formatRub, plural } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { DASHBOARD_KEY, fetchDashboard } from './api.ts';
import { DayBars, MONEY_SERIES, REGISTRATION_SERIES } from './RevenueChart.tsx';
import './dashboard.css';

/** Where the delivery queue is looked after (Магазин → Выдача в игре). */
const DELIVERIES_SCREEN = '/admin/shop?tab=deliveries';

/** /admin: money and players over 30 days, online now, what needs the owner, the latest orders and payments. */
export default function AdminDashboardPage() {
  useTitle('Админ-панель: обзор');
  const query = useQuery({ queryKey: DASHBOARD_KEY, queryFn: fetchDashboard, refetchInterval: 60_000 });
  return (
    <AdminSection
      title="Обзор"
      actions={
        <button type="button" className="btn btn-small" onClick={() => void query.refetch()} disabled={query.isFetching}>
          {query.isFetching ? 'Обновляем…' : 'Обновить'}
        </button>
      }
    >
      <QueryState query={query} error="Не удалось загрузить обзор">
        {(d) => <Dashboard d={d} />}
      </QueryState>
    </AdminSection>
  );
}

function Dashboard({ d }: { d: AdminDashboard }) {
  const zone = d.time_zone === 'Europe/Moscow' ? 'по московскому времени' : `по времени ${d.time_zone}`;
  return (
    <div className="stack dash">
      <ul className="dash-stats" aria-label="Главные цифры">
        <Stat label="Пополнения за 30 дней" value={formatRub(d.totals.topups)} testId="stat-topups" />
        <Stat
          label="Покупки за 30 дней"
          value={formatRub(d.totals.purchases)}
          note={d.totals.refunds > 0 ? `возвраты: ${formatRub(d.totals.refunds)}` : undefined}
          testId="stat-purchases"
        />
        <Stat
          label="Регистрации за 30 дней"
          value={String(d.totals.registrations)}
          note={`сегодня: ${d.days.at(-1)?.registrations ?? 0}`}
          testId="stat-registrations"
        />
        <Stat
          label="Онлайн сейчас"
          value={String(d.online.now)}
          note={`${d.online.servers_online} из ${d.online.servers_total} ${plural(d.online.servers_total, ['сервера', 'серверов', 'серверов'])} в сети · пик за сутки ${d.online.peak_24h}, за 30 дней ${d.online.peak_30d}`}
          testId="stat-online"
        />
      </ul>

      <div className="dash-charts">
        <section className="card">
          <DayBars
            days={d.days}
            series={MONEY_SERIES}
            title="Деньги по дням"
            empty="За 30 дней не было ни пополнений, ни покупок."
            summary={`Пополнения и покупки за 30 дней по дням: пополнено ${formatRub(d.totals.topups)}, потрачено ${formatRub(d.totals.purchases)}. Подробности — в таблице ниже.`}
          />
        </section>
        <section className="card">
          <DayBars
            days={d.days}
            series={REGISTRATION_SERIES}
            title="Регистрации по дням"
            empty="За 30 дней никто не зарегистрировался."
            summary={`Регистрации за 30 дней по дням: всего ${d.totals.registrations}.`}
          />
        </section>
      </div>
      <p className="muted dash-zone">Дни считаются {zone}.</p>

      <Attention d={d} />

      <section className="stack" aria-labelledby="dash-orders-h">
        <h3 id="dash-orders-h">Последние заказы</h3>
        {d.latest_orders.length === 0 ? (
          <p className="muted">Заказов пока нет.</p>
        ) : (
          <DataTable labelledBy="dash-orders-h" rows={d.latest_orders} columns={ORDER_COLUMNS} rowKey={(o) => `${o.kind}-${o.id}`} />
        )}
      </section>
      <section className="stack" aria-labelledby="dash-payments-h">
        <h3 id="dash-payments-h">Последние платежи</h3>
        {d.latest_payments.length === 0 ? (
          <p className="muted">Пополнений пока не было.</p>
        ) : (
          <DataTable labelledBy="dash-payments-h" rows={d.latest_payments} columns={PAYMENT_COLUMNS} rowKey={(p) => p.id} />
        )}
      </section>
    </div>
  );
}

function Stat({ label, value, note, testId }: { label: string; value: string; note?: string; testId: string }) {
  return (
    <li className="dash-stat card" data-testid={testId}>
      <span className="dash-stat-label">{label}</span>
      <strong className="dash-stat-value">{value}</strong>
      {note && <span className="dash-stat-note">{note}</span>}
    </li>
  );
}

/** Why something not given yet waits, as the owner acts on it. */
const WAITING_TEXT: Record<Exclude<keyof AdminDashboard['deliveries']['pending'], 'total'>, string> = {
  server_down: 'сервер недоступен — выдадим, когда он ответит',
  no_server: 'не выбран сервер — выберите его в выдаче',
  player_offline: 'игрок не в игре — выдадим, когда он зайдёт',
  sending: 'команда отправлена, ждём ответа сервера',
  queued: 'в очереди на отправку',
};

/** The one-line reason of a delivery in the tables. */
function whyText(x: DashboardDelivery): string {
  if (x.reason === 'failed') return 'Сервер отказал в выдаче';
  if (x.reason === 'unknown') return 'Сервер не подтвердил выдачу';
  if (x.state === 'sent') return 'Отправлено, ждём ответа';
  return x.waiting ? DELIVERY_WAITING_TEXT[x.waiting] : 'В очереди';
}

const DELIVERY_WAITING_TEXT: Record<NonNullable<DashboardDelivery['waiting']>, string> = {
  server_down: 'Сервер недоступен',
  no_server: 'Не выбран сервер',
  player_offline: 'Игрок не в игре',
};

/**
 * «Выдача в игре» on the overview: what failed (the owner's to look at), then what is not given
 * yet and why — every waiting delivery, however fresh, counted by its reason.
 */
function Attention({ d }: { d: AdminDashboard }) {
  const { failed, unknown, waiting, pending, items, waiting_items } = d.deliveries;
  const broken = failed + unknown;
  return (
    <section
      className={`card stack dash-attention${broken > 0 ? ' has-issues' : ''}`}
      aria-labelledby="dash-attention-h"
      data-testid="dashboard-attention"
    >
      <div className="admin-section-head">
        <h3 id="dash-attention-h">Выдача в игре</h3>
        <Link to={DELIVERIES_SCREEN} className="btn btn-small">
          Открыть выдачу
        </Link>
      </div>
      <div className="stack" data-testid="dashboard-failures">
        <h4>Ошибки выдачи</h4>
        {broken === 0 ? (
          <p className="muted">Ошибок выдачи нет.</p>
        ) : (
          <>
            <ul className="dash-attention-counts">
              {failed > 0 && (
                <li>
                  <strong>{failed}</strong> — сервер отказал в выдаче
                </li>
              )}
              {unknown > 0 && (
                <li>
                  <strong>{unknown}</strong> — сервер не подтвердил выдачу (команда могла выполниться)
                </li>
              )}
            </ul>
            <DataTable label="Ошибки выдачи" rows={items} columns={DELIVERY_COLUMNS} rowKey={(x) => x.id} />
          </>
        )}
      </div>
      <div className="stack" data-testid="dashboard-waiting">
        <h4>Ждут выдачи</h4>
        {pending.total === 0 ? (
          <p className="muted">Ничего не ждёт выдачи.</p>
        ) : (
          <>
            <p>
              <strong>{pending.total}</strong> {plural(pending.total, ['выдача ждёт', 'выдачи ждут', 'выдач ждут'])}
              {waiting > 0 && `, из них дольше ${DASHBOARD_WAITING_LONG_MIN} минут: ${waiting}`}.
            </p>
            <ul className="dash-attention-counts">
              {(Object.keys(WAITING_TEXT) as (keyof typeof WAITING_TEXT)[])
                .filter((why) => pending[why] > 0)
                .map((why) => (
                  <li key={why}>
                    <strong>{pending[why]}</strong> — {WAITING_TEXT[why]}
                  </li>
                ))}
            </ul>
            <DataTable label="Ждут выдачи" rows={waiting_items} columns={DELIVERY_COLUMNS} rowKey={(x) => x.id} />
          </>
        )}
      </div>
    </section>
  );
}

const DELIVERY_COLUMNS: Column<DashboardDelivery>[] = [
  { header: 'Что', cell: (x) => x.label, kind: 'main' },
  { header: 'Игрок', cell: (x) => x.username ?? '—' },
  { header: 'Сервер', cell: (x) => x.server ?? '—' },
  {
    header: 'Почему',
    cell: (x) => <span className={`badge ${x.reason === 'waiting' ? 'badge-warning' : 'badge-danger'}`}>{whyText(x)}</span>,
  },
  { header: 'Ошибка', cell: (x) => x.last_error ?? '—', kind: 'clip' },
  { header: 'С', cell: (x) => formatDateTime(x.created_at) },
];

const ORDER_COLUMNS: Column<DashboardOrder>[] = [
  { header: 'Что', cell: (o) => o.title, kind: 'main' },
  { header: 'Вид', cell: (o) => (o.kind === 'shop' ? 'Магазин' : 'Привилегия') },
  { header: 'Игрок', cell: (o) => <Link to={`/admin/users?user=${o.user_id}`}>{o.username}</Link> },
  { header: 'Сумма', cell: (o) => formatRub(o.total), kind: 'num' },
  { header: 'Когда', cell: (o) => formatDateTime(o.created_at) },
];

const PAYMENT_BADGE: Record<string, string> = { succeeded: 'badge-success', refunding: 'badge-warning', refunded: 'badge-warning' };

const PAYMENT_COLUMNS: Column<DashboardPayment>[] = [
  { header: 'Игрок', cell: (p) => <Link to={`/admin/users?user=${p.user_id}`}>{p.username}</Link>, kind: 'main' },
  { header: 'Сумма', cell: (p) => formatRub(p.amount), kind: 'num' },
  {
    header: 'Состояние',
    cell: (p) => (
      <span className={`badge ${PAYMENT_BADGE[p.status] ?? 'badge-neutral'}`}>
        {PAYMENT_STATUS_TEXT[p.status as PaymentStatus] ?? p.status}
      </span>
    ),
  },
  { header: 'Касса', cell: (p) => PAYMENT_PROVIDER_TEXT[p.provider as PaymentProvider] ?? p.provider },
  { header: 'Когда', cell: (p) => formatDateTime(p.created_at) },
];
