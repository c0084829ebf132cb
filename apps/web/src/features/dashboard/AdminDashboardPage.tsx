import {
  DASHBOARD_WAITING_LONG_MIN,
  DELIVERY_STATE_TEXT,
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

const REASON_TEXT: Record<DashboardDelivery['reason'], string> = {
  failed: 'Ошибка выдачи',
  unknown: 'Не подтверждено',
  waiting: `Ждёт дольше ${DASHBOARD_WAITING_LONG_MIN} минут`,
};

function Attention({ d }: { d: AdminDashboard }) {
  const { failed, unknown, waiting, items } = d.deliveries;
  const total = failed + unknown + waiting;
  return (
    <section
      className={`card stack dash-attention${total > 0 ? ' has-issues' : ''}`}
      aria-labelledby="dash-attention-h"
      data-testid="dashboard-attention"
    >
      <div className="admin-section-head">
        <h3 id="dash-attention-h">Выдача в игре</h3>
        <Link to={DELIVERIES_SCREEN} className="btn btn-small">
          Открыть выдачу
        </Link>
      </div>
      {total === 0 ? (
        <p className="muted">Всё выдано: ошибок и долгих ожиданий нет.</p>
      ) : (
        <>
          <ul className="dash-attention-counts">
            <li>
              <strong>{failed}</strong> {REASON_TEXT.failed.toLowerCase()}
            </li>
            <li>
              <strong>{unknown}</strong> не {plural(unknown, ['подтверждена', 'подтверждены', 'подтверждено'])}
            </li>
            <li>
              <strong>{waiting}</strong> {plural(waiting, ['ждёт', 'ждут', 'ждут'])} дольше {DASHBOARD_WAITING_LONG_MIN} минут
            </li>
          </ul>
          <DataTable label="Выдачи, требующие внимания" rows={items} columns={DELIVERY_COLUMNS} rowKey={(x) => x.id} />
        </>
      )}
    </section>
  );
}

const DELIVERY_COLUMNS: Column<DashboardDelivery>[] = [
  { header: 'Что', cell: (x) => x.label, kind: 'main' },
  { header: 'Игрок', cell: (x) => x.username ?? '—' },
  { header: 'Сервер', cell: (x) => x.server ?? '—' },
  {
    header: 'Состояние',
    cell: (x) => (
      <span className={`badge ${x.reason === 'failed' ? 'badge-danger' : 'badge-warning'}`}>
        {x.reason === 'waiting' ? `${DELIVERY_STATE_TEXT[x.state]} · ${REASON_TEXT.waiting.toLowerCase()}` : REASON_TEXT[x.reason]}
      </span>
    ),
  },
  { header: 'Ошибка', cell: (x) => x.last_error ?? '—', kind: 'clip' },
  { header: 'Когда', cell: (x) => formatDateTime(x.created_at) },
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
