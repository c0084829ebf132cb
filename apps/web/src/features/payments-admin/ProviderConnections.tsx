import {
  PROVIDER_FIELD_TEXT,
  PROVIDER_FIELDS,
  ProviderUpdateBody,
  providerUrlHosts,
  type AdminPaymentProvider,
  type ProviderCheckResult,
} from '@kubik/contract/payment-connections';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { Badge } from '../../components/Badge.tsx';
import { CopyText } from '../../components/CopyText.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, MoneyField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { OWNER_ONLY_HINT } from '../../lib/owner-only.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { ADMIN_PAYMENTS_KEY, ADMIN_PROVIDERS_KEY, checkProvider, fetchProviders, saveProvider } from './api.ts';

const SECRET_STATE: Record<string, string> = {
  set: 'задан в админ-панели',
  env: 'из переменных окружения',
  unset: 'не задан',
};
/** «Секретное слово» is neuter: «не задано», not «не задан». */
const NEUTER_SECRETS = new Set(['secret1', 'secret2']);
const secretState = (key: string, state: string) => {
  const text = SECRET_STATE[state] ?? SECRET_STATE.unset!;
  return NEUTER_SECRETS.has(key) ? text.replace('задан', 'задано') : text;
};

/** Платежи → Подключения: each provider's switch, keys (write-only), bounds and the address for its notifications. */
export function ProviderConnections() {
  const query = useQuery({ queryKey: ADMIN_PROVIDERS_KEY, queryFn: fetchProviders });
  return (
    <QueryState query={query} error="Не удалось загрузить способы оплаты" isEmpty={() => false}>
      {(list) => (
        <div className="stack provider-list">
          {list.map((p) => (
            <Provider key={`${p.id}:${JSON.stringify(p)}`} provider={p} />
          ))}
        </div>
      )}
    </QueryState>
  );
}

// The form holds text for every key; an empty secret means «keep what is stored».
const ConnectionForm = z.strictObject({
  enabled: z.boolean(),
  receipts: z.boolean(),
  min: ProviderUpdateBody.shape.min,
  max: ProviderUpdateBody.shape.max,
  fields: z.record(z.string(), z.string().max(500, 'Не длиннее 500 символов')),
  secrets: z.record(z.string(), z.string().max(2000, 'Не длиннее 2000 символов')),
});
type ConnectionValues = z.infer<typeof ConnectionForm>;

/**
 * What stands under a field: for staff, that it is the owner's (the shop, terminal, wallet or
 * merchant and the addresses decide where the money goes: the server refuses their change, 403
 * owner_only); for the owner, where an address may lead and what changing it does.
 */
function fieldHint(hosts: readonly string[] | null, owner: boolean): string | null {
  if (!owner)
    return hosts ? `${OWNER_ONLY_HINT}: на этот адрес уходят ключи.` : `${OWNER_ONLY_HINT}: от этого зависит, куда уходят деньги.`;
  if (!hosts) return null;
  return `Только https://${hosts.join(' или https://')} (или адрес из переменной окружения). При смене адреса сохранённые здесь ключи удаляются — введите их заново.`;
}

/** The switch: staff may switch a provider off; switching one on is the owner's. */
function enabledHint(enabled: boolean, owner: boolean): string | null {
  if (owner) return null;
  return enabled
    ? 'Выключить можно; включить снова сможет только владелец сайта.'
    : `${OWNER_ONLY_HINT}: включает способ оплаты только он.`;
}

function Provider({ provider: p }: { provider: AdminPaymentProvider }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const owner = useAuth().user?.is_admin ?? false;
  const spec = PROVIDER_FIELDS[p.id];
  const [check, setCheck] = useState<ProviderCheckResult | null>(null);
  const form = useSchemaForm(ConnectionForm, {
    defaultValues: {
      enabled: p.enabled,
      receipts: p.receipts ?? false,
      min: p.min,
      max: p.max,
      fields: { ...p.fields },
      secrets: Object.fromEntries(spec.secrets.map((k) => [k, ''])),
    },
  });
  const checking = useMutation({
    mutationFn: () => checkProvider(p.id),
    onMutate: () => setCheck(null),
    onSuccess: setCheck,
    onError: (err) => setCheck({ ok: false, message: err instanceof ApiError && err.message ? err.message : 'Проверка не удалась' }),
  });
  const clear = async (key: string) => {
    const saved = await saveProvider(p.id, { secrets: { [key]: null } });
    queryClient.setQueryData(ADMIN_PROVIDERS_KEY, saved);
    notify('success', `${PROVIDER_FIELD_TEXT[key] ?? key}: ${NEUTER_SECRETS.has(key) ? 'удалено' : 'удалён'}`);
  };

  async function save(v: ConnectionValues) {
    const secrets = Object.fromEntries(Object.entries(v.secrets).filter(([, s]) => s.trim() !== ''));
    const fields = Object.fromEntries(Object.entries(v.fields).map(([k, s]) => [k, s.trim() === '' ? null : s.trim()]));
    const saved = await saveProvider(p.id, {
      enabled: v.enabled,
      ...(spec.receipts ? { receipts: v.receipts } : {}),
      min: v.min ?? null,
      max: v.max ?? null,
      // Staff send neither fields nor keys: they are the owner's to change.
      ...(owner ? { fields, secrets } : {}),
    });
    queryClient.setQueryData(ADMIN_PROVIDERS_KEY, saved);
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
    void queryClient.invalidateQueries({ queryKey: ADMIN_PAYMENTS_KEY });
    notify('success', `${p.name}: настройки сохранены`);
  }

  return (
    <section className="card stack provider-card" aria-label={p.name} data-testid={`provider-${p.id}`}>
      <div className="row provider-head">
        <h3>{p.name}</h3>
        {p.connected ? (
          <Badge tone="success">Подключён</Badge>
        ) : p.enabled ? (
          <Badge tone="warning">Не хватает: {p.missing.join(', ')}</Badge>
        ) : (
          <Badge>Выключен</Badge>
        )}
      </div>
      <p className="muted">
        Адрес для уведомлений — укажите его в кабинете платёжной системы:{' '}
        <CopyText text={p.notification_url} label={`адрес уведомлений ${p.name}`} />
      </p>
      <Form form={form} onSubmit={save}>
        <CheckboxField
          name="enabled"
          label="Принимать оплату этим способом"
          disabled={!owner && !p.enabled}
          hint={enabledHint(p.enabled, owner)}
        />
        {spec.receipts && <CheckboxField name="receipts" label="Отправлять чеки (54-ФЗ) через ЮKassa" />}
        <FieldGroup legend="Настройки">
          {spec.fields.map((k) => {
            const hosts = providerUrlHosts(p.id, k);
            return (
              <TextField
                key={k}
                name={`fields.${k}`}
                label={PROVIDER_FIELD_TEXT[k] ?? k}
                autoComplete="off"
                spellCheck={false}
                readOnly={!owner}
                hint={fieldHint(hosts, owner)}
              />
            );
          })}
        </FieldGroup>
        <FieldGroup legend="Ключи">
          <p className="muted">
            {owner
              ? 'Ключи не показываются. Оставьте поле пустым, чтобы не менять сохранённый.'
              : `Ключи не показываются. ${OWNER_ONLY_HINT}.`}
          </p>
          {spec.secrets.map((k) => (
            <div key={k} className="provider-secret">
              <TextField
                name={`secrets.${k}`}
                label={`${PROVIDER_FIELD_TEXT[k] ?? k} — ${secretState(k, p.secrets[k] ?? 'unset')}`}
                type="password"
                autoComplete="new-password"
                readOnly={!owner}
                hint={
                  p.secrets_dropped[k] !== undefined
                    ? `Ключ, заданный здесь, удалён ${formatDateTime(p.secrets_dropped[k])}: сменился адрес, а на новый адрес старый ключ не отправляется. Введите его заново.`
                    : !owner && OWNER_ONLY_HINT
                }
              />
              {owner && p.secrets[k] === 'set' && (
                <button type="button" className="btn btn-small btn-ghost" onClick={() => void clear(k)}>
                  Удалить ключ
                </button>
              )}
            </div>
          ))}
        </FieldGroup>
        <div className="form-grid">
          <MoneyField name="min" label="Минимальная сумма, ₽" empty={null} hint="Пусто — как у всего сайта" />
          <MoneyField name="max" label="Максимальная сумма, ₽" empty={null} hint="Пусто — как у всего сайта" />
        </div>
        <FormErrors />
        <FormActions submitLabel="Сохранить">
          <button type="button" className="btn" onClick={() => checking.mutate()} disabled={checking.isPending}>
            {checking.isPending ? 'Проверяем…' : 'Проверить подключение'}
          </button>
        </FormActions>
      </Form>
      {check && (
        <p className={check.ok ? 'notice notice-success' : 'notice notice-danger'} role="status">
          {check.message}
        </p>
      )}
      {p.refusals.length > 0 && (
        <details>
          <summary>Отклонённые и тестовые уведомления</summary>
          <ul className="provider-refusals">
            {p.refusals.map((r) => (
              <li key={r.reason}>
                {r.reason_text}: {r.count}, последнее {formatDateTime(r.last_at)}
                {r.last_ip && <span className="muted"> с адреса {r.last_ip}</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
