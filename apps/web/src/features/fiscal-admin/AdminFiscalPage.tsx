import {
  AGE_MARKS,
  CONSENT_TEXT,
  FISCAL_VAT_TEXT,
  LEGAL_DOC_TEXT,
  LEGAL_DOCS,
  LEGAL_FORM_TEXT,
  LEGAL_FORMS,
  PAYMENT_SUBJECT_TEXT,
  PAYMENT_SUBJECTS,
  RECEIPT_KIND_TEXT,
  RECEIPT_KINDS,
  RECEIPT_STATE_TEXT,
  RECEIPT_STATES,
  TAX_SYSTEM_TEXT,
  type AdminFiscal,
  type AdminReceipt,
  type ConsentKind,
  type FiscalItem,
  type PaymentSubject,
  type LegalDocKind,
} from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { Badge } from '../../components/Badge.tsx';
import { FieldShell } from '../../components/form/FieldShell.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import {
  FISCAL_KEY,
  fetchConsents,
  fetchFiscal,
  fetchFiscalItems,
  fetchIncomes,
  fetchLegalDoc,
  fetchReceipts,
  publishLegalDoc,
  resendReceipt,
  saveFiscal,
  saveFiscalItem,
} from './api.ts';

/** Админ-панель → Продавец и чеки: the seller's details, 54-ФЗ receipts, legal documents, consents, a самозанятый's incomes. */
export default function AdminFiscalPage() {
  useTitle('Админ-панель: продавец и чеки');
  return (
    <div className="stack">
      <SellerForm />
      <ItemSettings />
      <Receipts />
      <LegalDocs />
      <Consents />
      <Incomes />
    </div>
  );
}

type FiscalValue = AdminFiscal['value'];

function SellerForm() {
  const client = useQueryClient();
  const query = useQuery({ queryKey: FISCAL_KEY, queryFn: fetchFiscal });
  const [value, setValue] = useState<FiscalValue | null>(null);
  const [error, setError] = useState<{ field?: string; message: string } | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (query.data && !value) setValue(query.data.value);
  }, [query.data, value]);
  const save = useMutation({
    mutationFn: saveFiscal,
    onSuccess: (data) => {
      client.setQueryData(FISCAL_KEY, data);
      setValue(data.value);
      setError(null);
      setSaved(true);
    },
    onError: (e) => setError(e instanceof ApiError ? { field: e.field, message: e.message } : { message: 'Не удалось сохранить' }),
  });
  const ids = {
    form: useId(),
    name: useId(),
    inn: useId(),
    ogrn: useId(),
    tax: useId(),
    vat: useId(),
    email: useId(),
    phone: useId(),
    address: useId(),
    age: useId(),
  };
  const errorOf = (field: string) => (error?.field === field ? error.message : undefined);
  const set = (patch: Partial<FiscalValue>) => {
    setValue((v) => (v ? { ...v, ...patch } : v));
    setSaved(false);
  };
  return (
    <AdminSection title="Продавец и чеки">
      <QueryState query={query} error="Не удалось загрузить реквизиты" isEmpty={() => false}>
        {(data) =>
          value && (
            <form
              className="form card"
              onSubmit={(e) => {
                e.preventDefault();
                save.mutate(value);
              }}
            >
              {data.missing.length > 0 && (
                <p className="muted" role="status">
                  Для чеков не хватает: {data.missing.join(', ')}.
                </p>
              )}
              <FieldShell id={ids.form} label="Форма продавца" error={errorOf('legal_form')}>
                <select
                  id={ids.form}
                  value={value.legal_form}
                  onChange={(e) => set({ legal_form: e.target.value as FiscalValue['legal_form'] })}
                >
                  {LEGAL_FORMS.map((f) => (
                    <option key={f} value={f}>
                      {LEGAL_FORM_TEXT[f]}
                    </option>
                  ))}
                </select>
              </FieldShell>
              <FieldShell id={ids.name} label="Наименование (ИП Иванов И. И., ООО «…»)" error={errorOf('name')}>
                <input id={ids.name} value={value.name} maxLength={200} onChange={(e) => set({ name: e.target.value })} />
              </FieldShell>
              <FieldShell id={ids.inn} label="ИНН" error={errorOf('inn')}>
                <input id={ids.inn} value={value.inn} inputMode="numeric" maxLength={12} onChange={(e) => set({ inn: e.target.value })} />
              </FieldShell>
              {value.legal_form !== 'self_employed' && (
                <FieldShell id={ids.ogrn} label={value.legal_form === 'ooo' ? 'ОГРН' : 'ОГРНИП'} error={errorOf('ogrn')}>
                  <input
                    id={ids.ogrn}
                    value={value.ogrn}
                    inputMode="numeric"
                    maxLength={15}
                    onChange={(e) => set({ ogrn: e.target.value })}
                  />
                </FieldShell>
              )}
              <FieldShell id={ids.tax} label="Система налогообложения" error={errorOf('tax_system_code')}>
                <select id={ids.tax} value={value.tax_system_code} onChange={(e) => set({ tax_system_code: Number(e.target.value) })}>
                  {Object.entries(TAX_SYSTEM_TEXT).map(([k, v]) => (
                    <option key={k} value={k}>
                      {v}
                    </option>
                  ))}
                </select>
              </FieldShell>
              <FieldShell id={ids.vat} label="Ставка НДС по умолчанию" error={errorOf('vat_code')}>
                <select id={ids.vat} value={value.vat_code} onChange={(e) => set({ vat_code: Number(e.target.value) })}>
                  {Object.entries(FISCAL_VAT_TEXT).map(([k, v]) => (
                    <option key={k} value={k}>
                      {v}
                    </option>
                  ))}
                </select>
              </FieldShell>
              <FieldShell id={ids.email} label="Почта продавца" error={errorOf('email')}>
                <input id={ids.email} type="email" value={value.email} onChange={(e) => set({ email: e.target.value })} />
              </FieldShell>
              <FieldShell id={ids.phone} label="Телефон продавца" error={errorOf('phone')}>
                <input id={ids.phone} type="tel" value={value.phone} onChange={(e) => set({ phone: e.target.value })} />
              </FieldShell>
              <FieldShell id={ids.address} label="Адрес продавца" error={errorOf('address')}>
                <input id={ids.address} value={value.address} maxLength={300} onChange={(e) => set({ address: e.target.value })} />
              </FieldShell>
              <FieldShell id={ids.age} label="Возрастная маркировка сайта" error={errorOf('age_mark')}>
                <select id={ids.age} value={value.age_mark} onChange={(e) => set({ age_mark: e.target.value as FiscalValue['age_mark'] })}>
                  {AGE_MARKS.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </FieldShell>
              {error && !error.field && (
                <p className="form-error" role="alert">
                  {error.message}
                </p>
              )}
              <div className="form-actions">
                <button type="submit" className="btn btn-primary" disabled={save.isPending}>
                  {save.isPending ? 'Сохраняем…' : 'Сохранить'}
                </button>
                {saved && <span role="status">Сохранено</span>}
              </div>
            </form>
          )
        }
      </QueryState>
    </AdminSection>
  );
}

/** Per privilege and item: the VAT rate and payment subject of its completion receipt line («по умолчанию»: the seller's VAT, «Услуга»). */
function ItemSettings() {
  const client = useQueryClient();
  const key = [...FISCAL_KEY, 'items'];
  const query = useQuery({ queryKey: key, queryFn: fetchFiscalItems });
  const save = useMutation({
    mutationFn: ({ item, vat, subject }: { item: FiscalItem; vat: number | null; subject: PaymentSubject | null }) =>
      saveFiscalItem(item, { vat_code: vat, payment_subject: subject }),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
  const columns: Column<FiscalItem>[] = [
    { header: 'Привилегия или товар', cell: (i) => `${i.kind === 'tier' ? 'Донат' : 'Товар'}: ${i.title}`, kind: 'main' },
    {
      header: 'Ставка НДС',
      cell: (i) => (
        <select
          aria-label={`Ставка НДС: ${i.title}`}
          value={i.vat_code ?? ''}
          onChange={(e) => save.mutate({ item: i, vat: e.target.value === '' ? null : Number(e.target.value), subject: i.payment_subject })}
        >
          <option value="">По умолчанию ({FISCAL_VAT_TEXT[i.effective_vat_code]})</option>
          {Object.entries(FISCAL_VAT_TEXT).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
      ),
    },
    {
      header: 'Предмет расчёта',
      cell: (i) => (
        <select
          aria-label={`Предмет расчёта: ${i.title}`}
          value={i.payment_subject ?? ''}
          onChange={(e) =>
            save.mutate({ item: i, vat: i.vat_code, subject: e.target.value === '' ? null : (e.target.value as PaymentSubject) })
          }
        >
          <option value="">По умолчанию (Услуга)</option>
          {PAYMENT_SUBJECTS.map((p) => (
            <option key={p} value={p}>
              {PAYMENT_SUBJECT_TEXT[p]}
            </option>
          ))}
        </select>
      ),
    },
  ];
  return (
    <AdminSection title="НДС и предмет расчёта в чеках">
      {save.error && (
        <p className="form-error" role="alert">
          {save.error.message}
        </p>
      )}
      <QueryState query={query} error="Не удалось загрузить товары" isEmpty={(d) => d.length === 0} empty="Нет ни привилегий, ни товаров">
        {(items) => <DataTable rows={items} columns={columns} rowKey={(i) => `${i.kind}-${i.id}`} label="НДС и предмет расчёта" />}
      </QueryState>
    </AdminSection>
  );
}

const STATE_TONE = { pending: 'neutral', sent: 'neutral', succeeded: 'success', canceled: 'danger' } as const;

function Receipts() {
  const client = useQueryClient();
  const [state, setState] = useState('');
  const [kind, setKind] = useState('');
  const ids = { state: useId(), kind: useId() };
  const query = useQuery({ queryKey: [...FISCAL_KEY, 'receipts', state, kind], queryFn: () => fetchReceipts(state, kind) });
  const resend = useMutation({
    mutationFn: resendReceipt,
    onSuccess: () => client.invalidateQueries({ queryKey: [...FISCAL_KEY, 'receipts'] }),
  });
  const columns: Column<AdminReceipt>[] = [
    { header: 'Игрок', cell: (r) => r.username ?? '—', kind: 'main' },
    { header: 'Когда', cell: (r) => formatDateTime(r.created_at) },
    { header: 'Вид', cell: (r) => r.kind_text },
    { header: 'Сумма', kind: 'num', cell: (r) => formatRub(r.amount) },
    {
      header: 'Состояние',
      cell: (r) => (
        <>
          <Badge tone={STATE_TONE[r.state]}>{r.state_text}</Badge>
          {r.reason && <div className="muted-small">{r.reason}</div>}
        </>
      ),
    },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (r) =>
        r.state === 'canceled' && (r.kind === 'settlement' || r.kind === 'settle_refund') ? (
          <button type="button" className="btn btn-small" disabled={resend.isPending} onClick={() => resend.mutate(r.id)}>
            Отправить заново
          </button>
        ) : null,
    },
  ];
  return (
    <AdminSection title="Чеки">
      <form className="payments-filters" role="search" aria-label="Отбор чеков" onSubmit={(e) => e.preventDefault()}>
        <FieldShell id={ids.state} label="Состояние">
          <select id={ids.state} value={state} onChange={(e) => setState(e.target.value)}>
            <option value="">Все</option>
            {RECEIPT_STATES.map((s) => (
              <option key={s} value={s}>
                {RECEIPT_STATE_TEXT[s]}
              </option>
            ))}
          </select>
        </FieldShell>
        <FieldShell id={ids.kind} label="Вид">
          <select id={ids.kind} value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="">Все</option>
            {RECEIPT_KINDS.map((k) => (
              <option key={k} value={k}>
                {RECEIPT_KIND_TEXT[k]}
              </option>
            ))}
          </select>
        </FieldShell>
      </form>
      {resend.error && (
        <p className="form-error" role="alert">
          {resend.error.message}
        </p>
      )}
      <QueryState query={query} error="Не удалось загрузить чеки" isEmpty={(d) => d.items.length === 0} empty="Чеков пока нет">
        {(data) => <DataTable rows={data.items} columns={columns} rowKey={(r) => String(r.id)} label="Чеки" />}
      </QueryState>
    </AdminSection>
  );
}

function LegalDocs() {
  const [kind, setKind] = useState<LegalDocKind>('offer');
  return (
    <AdminSection title="Документы">
      <div className="admin-actions" role="tablist" aria-label="Документ">
        {LEGAL_DOCS.map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            aria-selected={k === kind}
            className={k === kind ? 'btn btn-primary' : 'btn'}
            onClick={() => setKind(k)}
          >
            {LEGAL_DOC_TEXT[k]}
          </button>
        ))}
      </div>
      <LegalDocEditor key={kind} kind={kind} />
    </AdminSection>
  );
}

function LegalDocEditor({ kind }: { kind: LegalDocKind }) {
  const client = useQueryClient();
  const query = useQuery({ queryKey: [...FISCAL_KEY, 'legal', kind], queryFn: () => fetchLegalDoc(kind) });
  const [draft, setDraft] = useState<{ title: string; body: string } | null>(null);
  const ids = { title: useId(), body: useId() };
  useEffect(() => {
    if (query.data && !draft)
      setDraft(query.data.versions[0] ? { title: query.data.versions[0].title, body: query.data.versions[0].body } : query.data.template);
  }, [query.data, draft]);
  const publish = useMutation({
    mutationFn: () => publishLegalDoc(kind, draft!),
    onSuccess: (data) => client.setQueryData([...FISCAL_KEY, 'legal', kind], data),
  });
  const err = publish.error instanceof ApiError ? publish.error : null;
  return (
    <QueryState query={query} error="Не удалось загрузить документ" isEmpty={() => false}>
      {(doc) =>
        draft && (
          <form
            className="form card"
            onSubmit={(e) => {
              e.preventDefault();
              publish.mutate();
            }}
          >
            <p className="muted">
              {doc.versions.length > 0
                ? `Опубликована редакция ${doc.versions[0]!.version} от ${formatDateTime(doc.versions[0]!.published_at)}; все редакции хранятся.`
                : 'Ещё не опубликован. Ниже — шаблон с вашими реквизитами: проверьте его с юристом.'}
            </p>
            <FieldShell id={ids.title} label="Заголовок" error={err?.field === 'title' ? err.message : undefined}>
              <input id={ids.title} value={draft.title} onChange={(e) => setDraft({ ...draft, title: e.target.value })} />
            </FieldShell>
            <FieldShell id={ids.body} label="Текст (Markdown)" error={err?.field === 'body' ? err.message : undefined}>
              <textarea id={ids.body} rows={14} value={draft.body} onChange={(e) => setDraft({ ...draft, body: e.target.value })} />
            </FieldShell>
            {err && !err.field && (
              <p className="form-error" role="alert">
                {err.message}
              </p>
            )}
            <div className="form-actions">
              <button type="submit" className="btn btn-primary" disabled={publish.isPending}>
                Опубликовать новую редакцию
              </button>
              {doc.versions.length === 0 && (
                <button type="button" className="btn" onClick={() => setDraft(doc.template)}>
                  Вернуть шаблон
                </button>
              )}
            </div>
          </form>
        )
      }
    </QueryState>
  );
}

function Consents() {
  const query = useQuery({ queryKey: [...FISCAL_KEY, 'consents'], queryFn: fetchConsents });
  return (
    <AdminSection title="Согласия игроков">
      <QueryState query={query} error="Не удалось загрузить согласия" isEmpty={(d) => d.items.length === 0} empty="Согласий пока нет">
        {(data) => (
          <DataTable
            rows={data.items}
            rowKey={(c) => String(c.id)}
            label="Согласия"
            columns={[
              {
                header: 'Игрок',
                cell: (c) => c.username ?? (c.guest_nickname ? `${c.guest_nickname} (покупка без аккаунта)` : '—'),
                kind: 'main',
              },
              {
                header: 'Согласие',
                cell: (c) => `${CONSENT_TEXT[c.kind as ConsentKind] ?? c.kind}${c.kind === 'age' ? '' : `, ред. ${c.version}`}`,
              },
              { header: 'Когда', cell: (c) => formatDateTime(c.accepted_at) },
              { header: 'Адрес и браузер', cell: (c) => `${c.ip ?? '—'} · ${c.user_agent ?? '—'}` },
            ]}
          />
        )}
      </QueryState>
    </AdminSection>
  );
}

function Incomes() {
  const [year, setYear] = useState(new Date().getFullYear());
  const id = useId();
  const query = useQuery({ queryKey: [...FISCAL_KEY, 'incomes', year], queryFn: () => fetchIncomes(year) });
  return (
    <AdminSection
      title="Доходы самозанятого через ЮMoney и FreeKassa"
      actions={
        <a className="btn" href={`/api/admin/fiscal/incomes.csv?year=${year}`} download>
          Скачать CSV
        </a>
      }
    >
      <p className="muted">Эти платежи проходят без чеков: зарегистрируйте доход за каждый месяц в «Мой налог» сами.</p>
      <FieldShell id={id} label="Год">
        <input id={id} type="number" min={2000} max={2100} value={year} onChange={(e) => setYear(Number(e.target.value) || year)} />
      </FieldShell>
      <QueryState query={query} error="Не удалось загрузить доходы" isEmpty={() => false}>
        {(months) => (
          <DataTable
            rows={months}
            rowKey={(m) => m.month}
            label="Доходы по месяцам"
            columns={[
              { header: 'Месяц', cell: (m) => m.month, kind: 'main' },
              { header: 'Платежей', kind: 'num', cell: (m) => String(m.count) },
              { header: 'Получено', kind: 'num', cell: (m) => formatRub(m.received) },
              { header: 'Возвращено', kind: 'num', cell: (m) => formatRub(m.refunded) },
              { header: 'Доход', kind: 'num', cell: (m) => formatRub(m.income) },
            ]}
          />
        )}
      </QueryState>
    </AdminSection>
  );
}
