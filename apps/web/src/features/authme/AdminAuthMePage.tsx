import { AUTHME_COLUMN_KEYS, AUTHME_COLUMN_TEXT, type AuthMeImportView, type AuthMeSettingsBody, type AuthMeView } from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Badge } from '../../components/Badge.tsx';
import { ConnectionCheckPanel, DatabaseUrlField } from '../../components/DatabaseConnection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, NumberField, SelectField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useConfirm } from '../../components/useConfirm.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import {
  AUTHME_KEY,
  checkAuthMe,
  clearWarnings,
  fetchAuthMe,
  fetchImport,
  fetchRefusals,
  importKey,
  refusalsKey,
  saveAuthMe,
  startImport,
  stopImport,
} from './api.ts';
import './authme.css';

const SOURCE = { set: 'задан в админ-панели', env: 'из переменной окружения AUTHME_DATABASE_URL', unset: 'не задан' } as const;
const KIND = { mysql: 'MySQL / MariaDB', postgres: 'PostgreSQL', sqlite: 'SQLite' } as const;

/** Админ-панель → AuthMe: one account for the site and the game server's AuthMe (docs/authme.md). */
export default function AdminAuthMePage() {
  useTitle('Админ-панель: AuthMe');
  const query = useQuery({ queryKey: AUTHME_KEY, queryFn: fetchAuthMe });
  return (
    <AdminSection title="AuthMe">
      <p className="muted">
        Один аккаунт для сайта и игрового сервера с плагином AuthMe: игрок входит на сайт и в лаунчер паролем из игры, а пароль, заданный
        или изменённый на сайте, сразу работает в <code>/login</code>.
      </p>
      <QueryState query={query} error="Не удалось загрузить настройки AuthMe" isEmpty={() => false}>
        {(view) => (
          <div className="stack">
            <ConnectionForm key={JSON.stringify(view)} view={view} />
            <ConnectionCheckPanel
              headingId="authme-check-h"
              check={checkAuthMe}
              intro="Соединение, пользователь и пароль, база, таблица и каждый столбец, права на запись, алгоритм и образец хешей."
              testId="authme-check"
            />
            <Warnings view={view} />
            <ImportPanel view={view} />
          </div>
        )}
      </QueryState>
    </AdminSection>
  );
}

// The form holds text for every field; the server checks the values (its errors land beside the fields).
const Fields = z.object({
  database_url: z.string().max(1000, 'Слишком длинный адрес'),
  table: z.string().max(64, 'До 64 символов'),
  columns: z.record(z.string(), z.string().max(64, 'До 64 символов')),
  hash: z.string(),
  legacy_hashes: z.string().max(400, 'Слишком длинный список'),
  bcrypt_cost: z.number({ error: 'Введите число' }).int('Целое число'),
  pbkdf2_rounds: z.number({ error: 'Введите число' }).int('Целое число'),
  salted_md5_length: z.number({ error: 'Введите число' }).int('Целое число'),
  lock_on_ban: z.boolean(),
});
type Fields = z.infer<typeof Fields>;

function ConnectionForm({ view }: { view: AuthMeView }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const owner = useAuth().user?.is_admin ?? false;
  const form = useSchemaForm(Fields, {
    defaultValues: {
      database_url: '',
      table: view.table,
      columns: { ...view.columns },
      hash: view.hash,
      legacy_hashes: view.legacy_hashes.join(', '),
      bcrypt_cost: view.bcrypt_cost,
      pbkdf2_rounds: view.pbkdf2_rounds,
      salted_md5_length: view.salted_md5_length,
      lock_on_ban: view.lock_on_ban,
    },
  });
  const known = view.algorithms.some((a) => a.name === view.hash);
  const options = [
    ...(known ? [] : [{ value: view.hash, label: `${view.hash} (сайт его не поддерживает)` }]),
    ...view.algorithms.map((a) => ({
      value: a.name,
      label: `${a.name}${a.name === 'BCRYPT' ? ' (по умолчанию)' : ''}${a.weak ? ' — устаревший' : ''}`,
    })),
  ];

  async function save(v: Fields) {
    const body: AuthMeSettingsBody = {
      table: v.table.trim() === '' ? null : v.table.trim(),
      columns: Object.fromEntries(Object.entries(v.columns).map(([k, c]) => [k, c.trim()])),
      hash: v.hash,
      legacy_hashes: v.legacy_hashes
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean),
      bcrypt_cost: v.bcrypt_cost,
      pbkdf2_rounds: v.pbkdf2_rounds,
      salted_md5_length: v.salted_md5_length,
      lock_on_ban: v.lock_on_ban,
    };
    // The address is the owner's, and write-only: left empty it stays as it is.
    if (owner && v.database_url.trim() !== '') body.database_url = v.database_url.trim();
    const saved = await saveAuthMe(body);
    queryClient.setQueryData(AUTHME_KEY, saved);
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
    notify('success', 'Настройки AuthMe сохранены');
  }

  const c = view.connection;
  const now =
    c.source === 'unset' ? SOURCE.unset : `${SOURCE[c.source]}${c.kind ? `, ${KIND[c.kind]}` : ''}${c.display ? `: ${c.display}` : ''}`;
  return (
    <section className="card stack" aria-labelledby="authme-connection-h">
      <div className="row authme-head">
        <h3 id="authme-connection-h">Подключение</h3>
        {c.source === 'unset' ? <Badge>Не подключён</Badge> : <Badge tone="success">Адрес задан</Badge>}
      </div>
      <Form form={form} onSubmit={save}>
        <DatabaseUrlField
          owner={owner}
          label="Адрес базы данных AuthMe"
          placeholder="mysql://пользователь:пароль@хост:3306/база"
          hint={`Сейчас: ${now}. Пустое поле — оставить как есть. Также postgres://… или sqlite:/путь/authme.db. Лучше отдельный пользователь с правами SELECT, INSERT, UPDATE только на таблицу AuthMe.`}
          readOnly={`Адрес базы данных: ${now}. Его меняет только владелец сайта: в адресе пароль от базы.`}
        />
        <TextField name="table" label="Таблица" hint="DataSource.mySQLTablename в config.yml AuthMe (по умолчанию authme)." />
        <details className="authme-columns">
          <summary>Столбцы (если в config.yml AuthMe они переименованы)</summary>
          <FieldGroup legend="Столбцы таблицы AuthMe">
            {AUTHME_COLUMN_KEYS.map((k) => (
              <TextField
                key={k}
                name={`columns.${k}`}
                label={AUTHME_COLUMN_TEXT[k].label}
                hint={`DataSource.${AUTHME_COLUMN_TEXT[k].key}${AUTHME_COLUMN_TEXT[k].default ? ` (по умолчанию ${AUTHME_COLUMN_TEXT[k].default})` : ''}`}
              />
            ))}
          </FieldGroup>
        </details>
        <SelectField
          name="hash"
          label="Алгоритм паролей AuthMe"
          options={options}
          hint="settings.security.passwordHash в config.yml AuthMe. В нём сайт пишет пароли в таблицу AuthMe и первым проверяет их."
        />
        <TextField
          name="legacy_hashes"
          label="Старые алгоритмы"
          hint="settings.security.legacyHashes: через запятую, например SHA256. Пароли в них сайт тоже принимает."
        />
        <NumberField
          name="bcrypt_cost"
          label="Стоимость BCRYPT"
          hint="ExternalBoardOptions.bCryptLog2Round (12; в старых config.yml — 10)."
        />
        <NumberField name="pbkdf2_rounds" label="Итерации PBKDF2" hint="settings.security.pbkdf2Rounds (10000)." />
        <NumberField name="salted_md5_length" label="Длина соли SALTED2MD5" hint="settings.security.doubleMD5SaltLength (8)." />
        <CheckboxField
          name="lock_on_ban"
          label="Блокировка на сайте закрывает и вход в игру"
          hint="На время блокировки пароль в AuthMe заменяется хешем пароля, который никто не знает; после разблокировки прежний пароль возвращается."
        />
        <FormErrors />
        <FormActions />
      </Form>
    </section>
  );
}

function Warnings({ view }: { view: AuthMeView }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const clear = useMutation({
    mutationFn: clearWarnings,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: AUTHME_KEY });
      notify('success', 'Предупреждения сброшены');
    },
  });
  return (
    <section className="card stack" aria-labelledby="authme-warnings-h">
      <div className="row authme-head">
        <h3 id="authme-warnings-h">Предупреждения</h3>
        <span className="muted">
          Связано аккаунтов: {formatNumber(view.linked)}
          {view.pending_writes > 0 ? ` · ждут записи в AuthMe: ${formatNumber(view.pending_writes)}` : ''}
        </span>
      </div>
      {view.warnings.length === 0 ? (
        <p className="muted">Предупреждений нет.</p>
      ) : (
        <>
          <ul className="authme-list">
            {view.warnings.map((w) => (
              <li key={w.kind}>
                <strong>
                  {w.text} — {formatNumber(w.count)}
                </strong>
                <span className="muted">
                  {' '}
                  последнее {formatDateTime(w.last_at)}
                  {w.detail ? `: ${w.detail}` : ''}
                </span>
              </li>
            ))}
          </ul>
          <div>
            <button type="button" className="btn btn-small" onClick={() => clear.mutate()} disabled={clear.isPending}>
              Сбросить счётчики
            </button>
          </div>
        </>
      )}
    </section>
  );
}

const STATE_TEXT: Record<AuthMeImportView['state'], string> = {
  queued: 'ждёт начала',
  running: 'идёт',
  done: 'готово',
  failed: 'ошибка',
  cancelled: 'остановлен',
};

function ImportPanel({ view }: { view: AuthMeView }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const owner = useAuth().user?.is_admin ?? false;
  const { confirm, dialog } = useConfirm();
  const [id, setId] = useState<number | null>(view.last_import?.id ?? null);
  const live = useQuery({
    queryKey: importKey(id ?? 0),
    queryFn: () => fetchImport(id!),
    enabled: id !== null,
    initialData: view.last_import && view.last_import.id === id ? view.last_import : undefined,
    refetchInterval: (q) => (q.state.data && (q.state.data.state === 'queued' || q.state.data.state === 'running') ? 1000 : false),
  });
  const run = live.data;
  const start = useMutation({
    mutationFn: startImport,
    onSuccess: (started) => {
      setId(started.id);
      queryClient.setQueryData(importKey(started.id), started);
    },
    onError: (err) => notify('danger', err instanceof ApiError && err.message ? err.message : 'Не удалось начать'),
  });
  const stop = useMutation({
    mutationFn: () => stopImport(id!),
    onSuccess: (stopped) => queryClient.setQueryData(importKey(stopped.id), stopped),
  });
  const busy = run?.state === 'queued' || run?.state === 'running';
  const connected = view.connection.source !== 'unset';

  async function importAll() {
    if (
      await confirm('Перенести аккаунты AuthMe на сайт? Пароли останутся хешами AuthMe до первого входа каждого игрока.', {
        title: 'Перенос аккаунтов',
        confirmLabel: 'Перенести',
      })
    )
      start.mutate('import');
  }

  return (
    <section className="card stack" aria-labelledby="authme-import-h">
      {dialog}
      <h3 id="authme-import-h">Перенос аккаунтов</h3>
      <p className="muted">
        Сначала пробный прогон: сколько аккаунтов, чьи имена и почта уже заняты на сайте, какие имена не подходят. Перенос идёт в фоне
        страницами по 1000, продолжается после перезапуска сайта, а повторный ничего не создаёт дважды. Также:{' '}
        <code>npm run import:authme</code>.
      </p>
      {owner ? (
        <div className="row authme-actions">
          <button type="button" className="btn" onClick={() => start.mutate('dry')} disabled={!connected || busy || start.isPending}>
            Пробный прогон
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void importAll()}
            disabled={!connected || busy || start.isPending}
          >
            Перенести
          </button>
          {busy && (
            <button type="button" className="btn btn-small" onClick={() => stop.mutate()} disabled={stop.isPending}>
              Остановить
            </button>
          )}
        </div>
      ) : (
        <p className="muted">Запускает перенос владелец сайта.</p>
      )}
      {run && <ImportProgress run={run} />}
    </section>
  );
}

function ImportProgress({ run }: { run: AuthMeImportView }) {
  const pct = run.total > 0 ? Math.min(100, Math.floor((run.processed / run.total) * 100)) : run.state === 'done' ? 100 : 0;
  const dry = run.mode === 'dry';
  const refusals = useQuery({ queryKey: refusalsKey(run.id), queryFn: () => fetchRefusals(run.id), enabled: run.state === 'done' });
  const rows: [string, number][] = [
    [dry ? 'Будет создано аккаунтов' : 'Создано аккаунтов', run.created],
    ['Уже связаны с сайтом', run.linked],
    ['Имя занято аккаунтом сайта', run.name_collisions],
    ['Без почты (спросим при первом входе)', run.without_email],
    ['Имя не подходит сайту', run.refused],
    ['Хеш нельзя проверить', run.broken_hashes],
  ];
  return (
    <div className="stack" data-testid="authme-import">
      <p>
        {dry ? 'Пробный прогон' : 'Перенос'} №{run.id}: <strong>{STATE_TEXT[run.state]}</strong>, {formatNumber(run.processed)} из{' '}
        {formatNumber(run.total)} строк
      </p>
      <progress className="authme-progress" max={100} value={pct} aria-label={`Готово ${pct}%`} />
      {run.error && <p className="notice notice-danger">{run.error}</p>}
      <ul className="authme-list">
        {rows.map(([label, n]) => (
          <li key={label}>
            {label}: <strong>{formatNumber(n)}</strong>
          </li>
        ))}
      </ul>
      {refusals.data && refusals.data.refusals.length > 0 && (
        <details>
          <summary>Не перенесены ({formatNumber(run.refused + run.name_collisions)})</summary>
          <ul className="authme-list authme-names">
            {refusals.data.refusals.map((r, i) => (
              <li key={i}>
                <code>{r.name}</code> — {r.reason}
              </li>
            ))}
          </ul>
          {refusals.data.more && <p className="muted">Показаны первые 200.</p>}
        </details>
      )}
    </div>
  );
}
