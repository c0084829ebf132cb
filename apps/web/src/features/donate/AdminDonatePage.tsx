import type { DonateBody, DonateTier } from '@kubik/contract';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { RowActions } from '../../components/admin/RowMenu.tsx';
import { useCrud } from '../../components/admin/useCrud.ts';
import { Badge } from '../../components/Badge.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatNumber } from '../../lib/format.ts';
import { useTitle } from '../../providers/title.ts';
import { createTier, deleteTier, DONATE_KEY, fetchTiers, updateTier } from './api.ts';
import { AdminPrivileges } from './AdminPrivileges.tsx';
import { TierForm } from './TierForm.tsx';
import { Tabs } from '../../components/Tabs.tsx';
import { useSearchParams } from 'wouter';
import './donate.css';

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 80)}…` : s);

const TABS = [
  { id: 'tiers', label: 'Донаты' },
  { id: 'privileges', label: 'Выданные привилегии' },
];

/** The tiers, and who holds them (privileges granted and bought). */
export default function AdminDonatePage() {
  useTitle('Админ-панель: донат');
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'privileges' ? 'privileges' : 'tiers';
  return (
    <section className="stack" aria-label="Донат">
      <Tabs
        tabs={TABS}
        active={tab}
        onChange={(id) => setParams(id === 'tiers' ? {} : { tab: id }, { replace: true })}
        label="Разделы доната"
      >
        {tab === 'tiers' ? <AdminTiers /> : <AdminPrivileges />}
      </Tabs>
    </section>
  );
}

function AdminTiers() {
  const crud = useCrud<DonateTier, DonateBody>({
    queryKey: DONATE_KEY,
    list: fetchTiers,
    create: createTier,
    update: (tier, body) => updateTier(tier.id, body),
    remove: (tier) => deleteTier(tier.id),
    texts: {
      created: 'Донат добавлен!',
      updated: 'Донат обновлён!',
      removed: 'Донат удалён!',
      saveFailed: 'Ошибка при сохранении доната',
      removeFailed: 'Ошибка при удалении',
      confirmRemove: (tier) => `Удалить донат «${tier.title}»?`,
    },
  });

  const columns: Column<DonateTier>[] = [
    { header: 'ID', cell: (t) => t.id, kind: 'num' },
    {
      header: 'Название',
      kind: 'main',
      cell: (t) => (
        <div className="row">
          {t.title}
          {t.is_best && <Badge tone="gold">Лучший выбор</Badge>}
        </div>
      ),
    },
    { header: 'Описание', cell: (t) => clip(t.content), kind: 'clip' },
    { header: 'Цена', cell: (t) => formatNumber(t.amount), kind: 'num' },
    { header: 'Валюта', cell: (t) => t.currency },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (t) => (
        <RowActions what={`донат «${t.title}»`} onEdit={() => crud.openEdit(t)} onDelete={() => crud.remove(t)} busy={crud.removing} />
      ),
    },
  ];

  return (
    <AdminSection
      title="Донат"
      actions={
        <button type="button" className="btn btn-primary" onClick={crud.openNew}>
          Добавить донат
        </button>
      }
    >
      <QueryState query={crud.list} error="Не удалось загрузить донаты" empty="Нет доступных донатов">
        {(tiers) => <DataTable label="Донаты" rows={tiers} columns={columns} rowKey={(t) => t.id} />}
      </QueryState>
      {crud.dialog}
      <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить донат' : 'Новый донат'} onClose={crud.close} wide>
        {crud.editing !== undefined && (
          <TierForm key={crud.editing?.id ?? 'new'} tier={crud.editing} onSave={crud.save} onCancel={crud.close} />
        )}
      </Modal>
    </AdminSection>
  );
}
