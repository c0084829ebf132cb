import type { AdminSubscriptionsResponse } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { formatDate, formatRub } from '../../lib/format.ts';
import { api } from '../../lib/api.ts';

type Item = AdminSubscriptionsResponse['items'][number];
type Month = AdminSubscriptionsResponse['months'][number];

const fetchSubscriptions = () => api<AdminSubscriptionsResponse>('/api/admin/subscriptions');

/** Платежи → Подписки: every subscription that was ever paid, the money per month and churn. */
export function AdminSubscriptions() {
  const q = useQuery({ queryKey: ['admin', 'subscriptions'], queryFn: fetchSubscriptions });
  if (!q.data) return null;
  const { items, months, active } = q.data;
  const monthColumns: Column<Month>[] = [
    { header: 'Месяц', kind: 'main', cell: (m) => m.month },
    { header: 'Выручка', kind: 'num', cell: (m) => formatRub(m.revenue) },
    { header: 'Новых', kind: 'num', cell: (m) => m.started },
    { header: 'Ушло', kind: 'num', cell: (m) => m.churned },
    { header: 'Отток', kind: 'num', cell: (m) => `${m.churn}\u00a0%` },
  ];
  const itemColumns: Column<Item>[] = [
    { header: 'Игрок', kind: 'main', cell: (s) => s.username },
    { header: 'Донат', cell: (s) => `${s.title}, ${s.months} мес.` },
    { header: 'Сумма', kind: 'num', cell: (s) => formatRub(s.amount) },
    { header: 'Состояние', cell: (s) => s.state_text + (s.failures > 0 ? ` (неудачных списаний: ${s.failures})` : '') },
    { header: 'Следующее списание', cell: (s) => (s.next_charge_at ? formatDate(s.next_charge_at) : '—') },
    { header: 'Карта', cell: (s) => (s.card ? `•••• ${s.card}` : '—') },
  ];
  return (
    <section className="stack" aria-labelledby="admin-subs-h" data-testid="admin-subscriptions">
      <h2 id="admin-subs-h">Подписки: действует {active}</h2>
      <DataTable rows={[...months].reverse()} columns={monthColumns} rowKey={(m) => m.month} label="Подписки по месяцам" />
      {items.length > 0 && <DataTable rows={items} columns={itemColumns} rowKey={(s) => s.id} label="Подписки" />}
    </section>
  );
}
