import {
  VOTE_HASHES,
  VOTE_KIND_TEXT,
  VOTE_KINDS,
  VOTE_OUTCOME_TEXT,
  VotePrizesBody,
  VoteSiteBody,
  type AdminVoteSite,
  type VoteOutcome,
} from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useFormContext } from 'react-hook-form';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { DataTable, type Column } from '../../components/admin/DataTable.tsx';
import { useCrud, type Crud } from '../../components/admin/useCrud.ts';
import { CopyText } from '../../components/CopyText.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import {
  CheckboxField,
  FieldGroup,
  MoneyField,
  NumberField,
  SelectField,
  TextAreaField,
  TextField,
} from '../../components/form/fields.tsx';
import { Modal } from '../../components/Modal.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime, formatRub } from '../../lib/format.ts';
import { OWNER_ONLY_HINT } from '../../lib/owner-only.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import {
  ADMIN_VOTE_PRIZES_KEY,
  ADMIN_VOTE_SITES_KEY,
  createVoteSite,
  fetchVotePrizes,
  fetchVoteServers,
  fetchVoteSites,
  saveVotePrizes,
  updateVoteSite,
  VOTE_SERVERS_KEY,
  PLAYER_VOTES_KEY as VOTES_KEY,
} from './admin-api.ts';

const KIND_OPTIONS = VOTE_KINDS.map((k) => ({ value: k, label: VOTE_KIND_TEXT[k] }));
const HASH_OPTIONS = VOTE_HASHES.map((h) => ({ value: h, label: h }));

/** The form's fields as typed: commands one per line; the custom scheme kept while another kind is chosen. */
const SiteForm = z
  .object({
    kind: z.enum(VOTE_KINDS),
    title: z.string(),
    url: z.string(),
    secret: z.string(),
    reward_amount: z.number({ error: 'Введите сумму' }),
    commands_text: z.string(),
    cooldown_hours: z.number({ error: 'Перерыв: число часов' }),
    enabled: z.boolean(),
    server_ids: z.array(z.number()),
    custom: z.object({
      username_field: z.string(),
      timestamp_field: z.string(),
      signature_field: z.string(),
      hash: z.enum(VOTE_HASHES),
      template: z.string(),
    }),
  })
  .transform(({ commands_text, custom, ...rest }) => ({
    ...rest,
    reward_commands: commands_text
      .split('\n')
      .map((c) => c.trim())
      .filter(Boolean),
    custom: rest.kind === 'custom' ? custom : null,
  }))
  // The contract's own rules and words check what the fields became.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the fields' shape is checked by the transform above
  .pipe(VoteSiteBody as unknown as z.ZodType<z.output<typeof VoteSiteBody>, any>);
type SiteFormInput = z.input<typeof SiteForm>;
type SiteBody = z.input<typeof VoteSiteBody>;

const OUTCOMES = Object.keys(VOTE_OUTCOME_TEXT) as VoteOutcome[];

/** Админ-панель → Голосование: the tops, their callback addresses and logs, and the month's prizes. */
export function AdminVotes() {
  useTitle('Админ-панель: голосование');
  const owner = useAuth().user?.is_admin ?? false;
  const crud = useCrud<AdminVoteSite, SiteBody>({
    queryKey: ADMIN_VOTE_SITES_KEY,
    list: fetchVoteSites,
    refresh: [ADMIN_VOTE_SITES_KEY, VOTES_KEY],
    create: createVoteSite,
    update: (item, body) => updateVoteSite(item.id, body),
    texts: {
      created: 'Топ добавлен. Укажите адрес колбэка в настройках топа.',
      updated: 'Топ сохранён',
      removed: 'Топ выключен',
      saveFailed: 'Не удалось сохранить топ',
      removeFailed: 'Не удалось выключить топ',
      confirmRemove: (s) => `Выключить «${s.title}»?`,
    },
  });

  const columns: Column<AdminVoteSite>[] = [
    { header: 'Топ', kind: 'main', cell: (s) => `${s.title} (${VOTE_KIND_TEXT[s.kind]})` },
    {
      header: 'Награда',
      cell: (s) =>
        [
          s.reward_amount > 0 ? formatRub(s.reward_amount) : null,
          s.reward_commands.length > 0 ? `команд: ${s.reward_commands.length}` : null,
        ]
          .filter(Boolean)
          .join(', ') || '—',
    },
    { header: 'Перерыв', cell: (s) => `${s.cooldown_hours} ч`, kind: 'num' },
    {
      header: 'Состояние',
      cell: (s) => <span className={`badge ${s.enabled ? 'badge-success' : 'badge-neutral'}`}>{s.enabled ? 'Включён' : 'Выключен'}</span>,
    },
    { header: 'Принято', cell: (s) => s.counts.accepted ?? 0, kind: 'num' },
    {
      header: 'Действия',
      kind: 'actions',
      cell: (s) => (
        <button type="button" className="btn btn-small" aria-label={`Изменить топ «${s.title}»`} onClick={() => crud.openEdit(s)}>
          Изменить
        </button>
      ),
    },
  ];

  return (
    <div className="stack">
      <AdminSection
        title="Голосование"
        actions={
          // A new top brings a secret: whoever knows it signs votes for any account. The owner's.
          owner ? (
            <button type="button" className="btn btn-primary" onClick={crud.openNew}>
              Добавить топ
            </button>
          ) : (
            <span className="muted">Топы добавляет только владелец сайта</span>
          )
        }
      >
        <QueryState query={crud.list} error="Не удалось загрузить топы" empty="Топов пока нет: добавьте первый">
          {(sites) => (
            <div className="stack">
              <DataTable label="Топы" rows={sites} columns={columns} rowKey={(s) => s.id} />
              {sites.map((s) => (
                <SiteLog key={s.id} site={s} />
              ))}
            </div>
          )}
        </QueryState>
        <Modal open={crud.editing !== undefined} title={crud.editing ? 'Изменить топ' : 'Новый топ'} onClose={crud.close} wide>
          {crud.editing !== undefined && <SiteEditor key={crud.editing?.id ?? 'new'} crud={crud} />}
        </Modal>
      </AdminSection>
      <Prizes />
    </div>
  );
}

function SiteLog({ site }: { site: AdminVoteSite }) {
  return (
    <details className="card">
      <summary>
        {site.title}: адрес колбэка и журнал (
        {OUTCOMES.map((o) => (site.counts[o] ? `${VOTE_OUTCOME_TEXT[o].toLowerCase()}: ${site.counts[o]}` : null))
          .filter(Boolean)
          .join(', ') || 'колбэков ещё не было'}
        )
      </summary>
      <div className="stack">
        <CopyText text={site.callback_url} label={`Адрес колбэка для «${site.title}»`} />
        <p className="muted">
          {site.secret_hint ? `Ключ: ${site.secret_hint}.` : 'Ключ виден только владельцу сайта.'} Хранятся последние 50 колбэков; счётчики
          — за всё время.
        </p>
        {site.recent.length > 0 && (
          <DataTable
            label={`Последние колбэки «${site.title}»`}
            rows={site.recent}
            rowKey={(r) => `${r.at}-${r.outcome}-${r.username ?? ''}-${r.ip ?? ''}`}
            columns={[
              { header: 'Когда', cell: (r) => formatDateTime(r.at) },
              { header: 'Исход', cell: (r) => VOTE_OUTCOME_TEXT[r.outcome] },
              { header: 'Ник', cell: (r) => r.username ?? '—' },
              { header: 'Адрес', cell: (r) => r.ip ?? '—' },
            ]}
          />
        )}
      </div>
    </details>
  );
}

/** Which servers run the reward commands: checkboxes of the site's servers; none ticked means all of them. */
function RewardServers() {
  const { watch, setValue } = useFormContext<SiteFormInput>();
  const chosen = watch('server_ids');
  const servers = useQuery({ queryKey: VOTE_SERVERS_KEY, queryFn: fetchVoteServers });
  const list = servers.data?.servers ?? [];
  const toggle = (id: number, on: boolean) =>
    setValue('server_ids', on ? [...chosen.filter((x) => x !== id), id] : chosen.filter((x) => x !== id), { shouldDirty: true });
  return (
    <fieldset className="field-group" data-testid="vote-site-servers">
      <legend>Серверы для команд награды</legend>
      {servers.isPending ? (
        <p className="muted">Загружаем серверы…</p>
      ) : list.length === 0 ? (
        <p className="muted">Серверов пока нет: команды выполнятся на всех, что будут добавлены.</p>
      ) : (
        list.map((server) => (
          <label key={server.id} className="checkbox">
            <input type="checkbox" checked={chosen.includes(server.id)} onChange={(e) => toggle(server.id, e.target.checked)} />{' '}
            {server.name}
          </label>
        ))
      )}
      {/* A server removed since: still stored, shown so it can be unticked. */}
      {chosen
        .filter((id) => !servers.isPending && !list.some((x) => x.id === id))
        .map((id) => (
          <label key={id} className="checkbox">
            <input type="checkbox" checked onChange={() => toggle(id, false)} /> Сервер №{id} (удалён)
          </label>
        ))}
      <span className="hint">Ничего не отмечено — на всех серверах с RCON.</span>
    </fieldset>
  );
}

/**
 * Staff edit a top's title, link, in-game commands and servers, and may switch it off; its secret,
 * kind and signature, the reward on the balance, the cooldown and switching it on decide whose
 * votes are believed and what they pay, and are the owner's (the server refuses: 403 owner_only).
 */
function SiteEditor({ crud }: { crud: Crud<AdminVoteSite, SiteBody> }) {
  const s = crud.editing;
  const locked = !(useAuth().user?.is_admin ?? false);
  const form = useSchemaForm<SiteFormInput, z.output<typeof VoteSiteBody>>(SiteForm, {
    defaultValues: {
      kind: s?.kind ?? 'topcraft',
      title: s?.title ?? '',
      url: s?.url ?? '',
      secret: '',
      reward_amount: s?.reward_amount ?? 0,
      commands_text: (s?.reward_commands ?? []).join('\n'),
      cooldown_hours: s?.cooldown_hours ?? 24,
      enabled: s?.enabled ?? true,
      server_ids: s?.server_ids ?? [],
      custom: {
        username_field: s?.custom?.username_field ?? 'username',
        timestamp_field: s?.custom?.timestamp_field ?? 'timestamp',
        signature_field: s?.custom?.signature_field ?? 'signature',
        hash: s?.custom?.hash ?? 'sha1',
        template: s?.custom?.template ?? '{username}{timestamp}{secret}',
      },
    },
  });
  return (
    <Form form={form} onSubmit={(body) => crud.save(body)}>
      <SelectField name="kind" label="Топ" options={KIND_OPTIONS} disabled={locked} hint={locked ? OWNER_ONLY_HINT : undefined} />
      <TextField name="title" label="Название на странице голосования" maxLength={100} />
      <TextField name="url" label="Ссылка для голосования" placeholder="https://…" maxLength={500} />
      <TextField
        name="secret"
        label="Секретный ключ"
        autoComplete="off"
        readOnly={locked}
        hint={
          locked
            ? `${OWNER_ONLY_HINT}: кто знает ключ, может подписать голос за любого игрока.`
            : s
              ? `Сейчас: ${s.secret_hint}. Оставьте пустым, чтобы не менять.`
              : 'Ключ из настроек сервера на сайте топа.'
        }
        maxLength={200}
      />
      <CustomScheme locked={locked} />
      <div className="form-grid">
        <MoneyField name="reward_amount" label="Награда на баланс, ₽" readOnly={locked} hint={locked ? OWNER_ONLY_HINT : undefined} />
        <NumberField
          name="cooldown_hours"
          label="Перерыв между голосами, ч"
          readOnly={locked}
          hint={locked ? OWNER_ONLY_HINT : undefined}
        />
      </div>
      <TextAreaField
        name="commands_text"
        label="Команды награды (по одной в строке)"
        rows={3}
        hint="Выполняются на выбранных ниже серверах с RCON (или на всех), когда игрок в игре. Подстановки: {player}, {uuid}."
      />
      <RewardServers />
      <CheckboxField
        name="enabled"
        label="Включён (выключенный топ не принимает колбэки и скрыт со страницы)"
        disabled={locked && !s?.enabled}
        hint={locked ? (s?.enabled ? 'Выключить можно; включить снова сможет только владелец сайта.' : OWNER_ONLY_HINT) : undefined}
      />
      <FormErrors />
      <FormActions onCancel={crud.close} />
    </Form>
  );
}

function CustomScheme({ locked }: { locked: boolean }) {
  const { watch } = useFormContext<SiteFormInput>();
  if (watch('kind') !== 'custom') return null;
  return (
    <FieldGroup legend="Свой топ: поля и подпись">
      {locked && <p className="hint">{OWNER_ONLY_HINT}.</p>}
      <div className="form-grid">
        <TextField name="custom.username_field" label="Поле с ником" readOnly={locked} />
        <TextField name="custom.timestamp_field" label="Поле со временем (пусто — нет)" readOnly={locked} />
        <TextField name="custom.signature_field" label="Поле с подписью" readOnly={locked} />
        <SelectField name="custom.hash" label="Алгоритм" options={HASH_OPTIONS} disabled={locked} />
      </div>
      <TextField
        name="custom.template"
        label="Шаблон подписи"
        readOnly={locked}
        hint="Например {username}{timestamp}{secret}: подпись = hex(хеш(строка))."
      />
    </FieldGroup>
  );
}

const PrizesForm = z
  .object({ prizes_text: z.string() })
  .transform(({ prizes_text }) => ({
    prizes: prizes_text
      .split(/[;\n]/)
      .map((p) => p.trim().replace(/\s/g, '').replace(',', '.'))
      .filter(Boolean)
      .map(Number),
  }))
  .pipe(VotePrizesBody);

function Prizes() {
  const query = useQuery({ queryKey: ADMIN_VOTE_PRIZES_KEY, queryFn: fetchVotePrizes });
  return (
    <AdminSection title="Призы месяца">
      <QueryState query={query} error="Не удалось загрузить призы" isEmpty={() => false}>
        {(data) => <PrizesEditor key={data.prizes.join(';')} prizes={data.prizes} />}
      </QueryState>
    </AdminSection>
  );
}

/** The prizes are balance paid out: the owner sets them; staff see them. */
function PrizesEditor({ prizes }: { prizes: number[] }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const owner = useAuth().user?.is_admin ?? false;
  const form = useSchemaForm<{ prizes_text: string }, VotePrizesBody>(PrizesForm, {
    defaultValues: { prizes_text: prizes.map((p) => String(p).replace('.', ',')).join('; ') },
  });
  return (
    <Form
      form={form}
      onSubmit={async (body) => {
        const saved = await saveVotePrizes(body);
        queryClient.setQueryData(ADMIN_VOTE_PRIZES_KEY, saved);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        void queryClient.invalidateQueries({ queryKey: VOTES_KEY });
        notify('success', 'Призы сохранены');
      }}
    >
      <TextField
        name="prizes_text"
        label="Призы за места 1, 2, 3 … в рублях, через «;»"
        placeholder="500; 300; 100"
        readOnly={!owner}
        hint={`После конца месяца (по часовому поясу сайта) призы один раз зачисляются на баланс лучшим голосующим. Пусто — призов нет.${owner ? '' : ` ${OWNER_ONLY_HINT}.`}`}
      />
      <FormErrors />
      {owner && <FormActions />}
    </Form>
  );
}
