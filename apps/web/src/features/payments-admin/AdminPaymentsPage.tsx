import {
  ADMIN_PAYMENTS_PAGE_SIZE,
  AdminPaymentsFilter,
  PAYMENT_PROVIDER_TEXT,
  PAYMENT_STATUS_TEXT,
  PAYMENT_STATUSES,
  type AdminPayment,
  type AdminPaymentTotals,
} from '@kubik/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime, formatRub, plural } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import {
  ADMIN_PAYMENTS_KEY,
  ADMIN_PROVIDERS_KEY,
  csvUrl,
  fetchConnected,
  fetchPayments,
  filtersFromSearch,
  NO_FILTERS,
  type PaymentFilters,
} from './api.ts';
import { AdminSubscriptions } from './AdminSubscriptions.tsx';
import { BonusSettings } from './BonusSettings.tsx';
import { PaymentDetail } from './PaymentDetail.tsx';
import { ProviderConnections } from './ProviderConnections.tsx';
import { STATUS_TONE } from './status.ts';
import './payments-admin.css';
import { fieldDescribedBy, FieldShell } from '../../components/form/FieldShell.tsx';
import { Pager } from '../../components/Pager.tsx';

const PAYMENTS = ['платёж', 'платежа', 'платежей'] as const;

/** Why the typed name cannot be a filter (the API's own rule), or null when it can. */
function playerError(typed: string): string | null {
  const checked = AdminPaymentsFilter.shape.player.safeParse(typed);
  return checked.success ? null : (checked.error.issues[0]?.message ?? 'Некорректное имя игрока');
}

/** Админ-панель → Платежи: every top-up with filters, sums, a CSV for Excel, each payment's story and its refund. */
export default function AdminPaymentsPage() {
  useTitle('Админ-панель: платежи');
  const [filters, setFilters] = useState<PaymentFilters>(() => filtersFromSearch(window.location.search));
  // The name is typed letter by letter: the list follows once typing pauses.
  const [player, setPlayer] = useState(filters.player);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const [settings, setSettings] = useState(false);
  const [connections, setConnections] = useState(false);
  // Only the connected providers are offered as a filter (and the one a link asked for).
  const connected = useQuery({ queryKey: [...ADMIN_PROVIDERS_KEY, 'connected'], queryFn: fetchConnected });
  const providerChoices = [
    ...new Set([...(connected.data?.providers.map((p) => p.id) ?? []), ...(filters.provider ? [filters.provider] : [])]),
  ];
  // A name the API would refuse is not sent: the error shows under the field and the list stays.
  const badPlayer = playerError(player);
  useEffect(() => {
    if (badPlayer) return;
    const timer = setTimeout(() => {
      setFilters((f) => (f.player === player ? f : { ...f, player }));
      setPage(1);
    }, 350);
    return () => clearTimeout(timer);
  }, [player, badPlayer]);
  const change = (patch: Partial<PaymentFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  const list = useQuery({
    queryKey: [...ADMIN_PAYMENTS_KEY, 'list', filters, page],
    queryFn: () => fetchPayments(filters, page, ADMIN_PAYMENTS_PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.per_page)) : 1;
  const ids = { status: useId(), provider: useId(), player: useId(), from: useId(), to: useId() };
  const filtered = player !== '' || (filters !== NO_FILTERS && Object.values(filters).some((v) => v !== ''));
  // Typed dates (the picker keeps to min/max, the keyboard does not): an empty period is a mistake, said under «По».
  const badPeriod = filters.from !== '' && filters.to !== '' && filters.from > filters.to ? 'Дата «По» раньше даты «С»' : null;

  const columns: Column<AdminPayment>[] = [
    { header: 'Игрок', cell: (p) => p.username, kind: 'main' },
    { header: 'Создан', cell: (p) => <time dateTime={new Date(p.created_at).toISOString()}>{formatDateTime(p.created_at)}</time> },
    {
      header: 'Сумма',
      kind: 'num',
      cell: (p) => (
        <>
          {formatRub(p.amount)}
          {p.bonus > 0 && <div className="muted-small">+ бонус {formatRub(p.bonus)}</div>}
        </>
      ),
    },
    { header: 'Способ', cell: (p) => PAYMENT_PROVIDER_TEXT[p.provider] },
    { header: 'Статус', cell: (p) => <Badge tone={STATUS_TONE[p.status]}>{PAYMENT_STATUS_TEXT[p.status]}</Badge> },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (p) => (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => setOpen(p.id)}
          aria-label={`Платёж ${p.username} на ${formatRub(p.amount)}: подробнее`}
        >
          Подробнее
        </button>
      ),
    },
  ];

  return (
    <AdminSection
      title="Платежи"
      actions={
        <>
          <a className="btn" href={csvUrl(filters)} download>
            Скачать CSV
          </a>
          <button type="button" className="btn" onClick={() => setSettings(true)}>
            Бонусы и чек
          </button>
          <button type="button" className="btn" onClick={() => setConnections(true)}>
            Подключения
          </button>
        </>
      }
    >
      <form className="payments-filters" role="search" aria-label="Отбор платежей" onSubmit={(e) => e.preventDefault()}>
        <FieldShell id={ids.status} label="Статус">
          <select id={ids.status} value={filters.status} onChange={(e) => change({ status: e.target.value as PaymentFilters['status'] })}>
            <option value="">Все</option>
            {PAYMENT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {PAYMENT_STATUS_TEXT[s]}
              </option>
            ))}
          </select>
        </FieldShell>
        <FieldShell id={ids.provider} label="Способ оплаты">
          <select
            id={ids.provider}
            value={filters.provider}
            onChange={(e) => change({ provider: e.target.value as PaymentFilters['provider'] })}
          >
            <option value="">Все</option>
            {providerChoices.map((p) => (
              <option key={p} value={p}>
                {PAYMENT_PROVIDER_TEXT[p]}
              </option>
            ))}
          </select>
        </FieldShell>
        <FieldShell id={ids.player} label="Игрок" error={badPlayer}>
          <input
            id={ids.player}
            type="search"
            value={player}
            maxLength={16}
            autoComplete="off"
            spellCheck={false}
            placeholder="Часть имени"
            aria-invalid={badPlayer ? true : undefined}
            aria-describedby={fieldDescribedBy(ids.player, badPlayer)}
            onChange={(e) => setPlayer(e.target.value)}
          />
        </FieldShell>
        <FieldShell id={ids.from} label="С">
          <input
            id={ids.from}
            type="date"
            value={filters.from}
            max={filters.to || undefined}
            onChange={(e) => change({ from: e.target.value })}
          />
        </FieldShell>
        <FieldShell id={ids.to} label="По" error={badPeriod}>
          <input
            id={ids.to}
            type="date"
            value={filters.to}
            min={filters.from || undefined}
            aria-invalid={badPeriod ? true : undefined}
            aria-describedby={fieldDescribedBy(ids.to, badPeriod)}
            onChange={(e) => change({ to: e.target.value })}
          />
        </FieldShell>
        {filtered && (
          <div className="payments-filters-reset">
            <button
              type="button"
              className="btn btn-small btn-ghost"
              onClick={() => {
                setPlayer('');
                change(NO_FILTERS);
              }}
            >
              Сбросить
            </button>
          </div>
        )}
      </form>

      <QueryState
        query={list}
        error="Не удалось загрузить платежи"
        empty={filtered ? 'Таких платежей нет' : 'Платежей пока нет'}
        isEmpty={(d) => d.payments.length === 0 && d.total === 0}
      >
        {(data) => (
          <>
            <Totals totals={data.totals} />
            <div aria-busy={list.isFetching}>
              <DataTable
                label="Платежи"
                rows={data.payments}
                columns={columns}
                rowKey={(p) => p.id}
                rowProps={(p) => ({ 'data-testid': `payment-row-${p.id}` })}
              />
            </div>
            <Pager page={page} pages={pages} onPage={setPage} label="Страницы платежей" />
          </>
        )}
      </QueryState>

      <Modal open={open !== null} title="Платёж" onClose={() => setOpen(null)} wide>
        {open !== null && <PaymentDetail id={open} />}
      </Modal>
      <Modal
        open={connections}
        title="Подключения: способы оплаты"
        onClose={() => {
          setConnections(false);
          void connected.refetch();
        }}
        wide
      >
        {connections && <ProviderConnections />}
      </Modal>
      <Modal open={settings} title="Бонусы к пополнению и чек" onClose={() => setSettings(false)}>
        {settings && <BonusSettings onDone={() => setSettings(false)} />}
      </Modal>
      <AdminSubscriptions />
    </AdminSection>
  );
}

/** The sums of everything the filters matched (all pages). */
function Totals({ totals }: { totals: AdminPaymentTotals }) {
  return (
    <dl className="payments-totals" aria-label="Итоги по отобранным платежам">
      <div>
        <dt>Оплачено</dt>
        <dd>
          {formatRub(totals.paid)}
          <span className="muted">
            {totals.paid_count} {plural(totals.paid_count, PAYMENTS)}
          </span>
        </dd>
      </div>
      <div>
        <dt>Возвращено</dt>
        <dd>
          {formatRub(totals.refunded)}
          <span className="muted">
            {totals.refunded_count} {plural(totals.refunded_count, PAYMENTS)}
          </span>
        </dd>
      </div>
      <div>
        <dt>Итого</dt>
        <dd>{formatRub(totals.net)}</dd>
      </div>
      <div>
        <dt>Бонусы</dt>
        <dd>{formatRub(totals.bonus)}</dd>
      </div>
      <div>
        <dt>Всего платежей</dt>
        <dd>{totals.count}</dd>
      </div>
    </dl>
  );
}
