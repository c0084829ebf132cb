import {
  ANNOUNCE_CHANNELS,
  ANNOUNCE_EVENT_TEXT,
  ANNOUNCE_EVENTS,
  ANNOUNCE_PLACEHOLDERS,
  ANNOUNCE_TEMPLATE_MAX,
  type AnnounceChannel,
  type AnnounceSettingsBody,
  type AnnounceSettingsView,
} from '@kubik/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Badge } from '../../components/Badge.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, SelectField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ApiError } from '../../lib/api.ts';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { useTitle } from '../../providers/title.ts';
import { ANNOUNCE_KEY, fetchAnnounce, saveAnnounce, testAnnounce } from './api.ts';

const CHANNEL_TEXT: Record<AnnounceChannel, string> = { discord: 'Discord', telegram: 'Telegram', vk: 'VK' };
const STATE_TEXT = { queued: 'в очереди', sent: 'отправлено', failed: 'не доставлено' } as const;

/** Админ-панель → Объявления: news, purchases, tickets and servers in Discord, Telegram and VK (docs/announcements.md). */
export default function AdminAnnouncePage() {
  useTitle('Админ-панель: объявления');
  const owner = useAuth().user?.is_admin ?? false;
  const query = useQuery({ queryKey: ANNOUNCE_KEY, queryFn: fetchAnnounce, enabled: owner });
  return (
    <AdminSection title="Объявления">
      <p className="muted">
        Сайт сам пишет в Discord, Telegram и VK о новостях, покупках, новых обращениях и о том, что сервер упал или поднялся.
      </p>
      {!owner ? (
        <p className="notice">
          Объявления настраивает только владелец сайта: адреса вебхуков и токены ботов — ключи от каналов сообщества.
        </p>
      ) : (
        <QueryState query={query} error="Не удалось загрузить настройки объявлений" isEmpty={() => false}>
          {(view) => (
            <div className="stack">
              <SettingsForm key={JSON.stringify({ ...view, recent: [] })} view={view} />
              <TestPanel view={view} />
              <Recent view={view} />
            </div>
          )}
        </QueryState>
      )}
    </AdminSection>
  );
}

const Fields = z.object({
  discord_webhook_url: z.string().max(500, 'Слишком длинный адрес'),
  discord_remove: z.boolean(),
  telegram_bot_token: z.string().max(200, 'Слишком длинный токен'),
  telegram_remove: z.boolean(),
  telegram_chat_id: z.string().max(40, 'Слишком длинно'),
  vk_token: z.string().max(400, 'Слишком длинный ключ'),
  vk_remove: z.boolean(),
  vk_group_id: z.string().max(12, 'Слишком длинно'),
  vk_mode: z.enum(['wall', 'messages']),
  vk_peer_id: z.string().max(12, 'Слишком длинно'),
  events: z.record(z.string(), z.boolean()),
  purchase_amount: z.enum(['shown', 'hidden']),
  templates: z.record(z.string(), z.string().max(ANNOUNCE_TEMPLATE_MAX, `До ${ANNOUNCE_TEMPLATE_MAX} символов`)),
});
type Fields = z.infer<typeof Fields>;

function SettingsForm({ view }: { view: AnnounceSettingsView }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(Fields, {
    defaultValues: {
      discord_webhook_url: '',
      discord_remove: false,
      telegram_bot_token: '',
      telegram_remove: false,
      telegram_chat_id: view.telegram.chat_id,
      vk_token: '',
      vk_remove: false,
      vk_group_id: view.vk.group_id,
      vk_mode: view.vk.mode,
      vk_peer_id: view.vk.peer_id,
      events: Object.fromEntries(ANNOUNCE_EVENTS.map((e) => [e, view.events.includes(e)])),
      purchase_amount: view.purchase_amount,
      templates: { ...view.templates },
    },
  });
  async function save(v: Fields) {
    const body: AnnounceSettingsBody = {
      telegram_chat_id: v.telegram_chat_id.trim(),
      vk_group_id: v.vk_group_id.trim(),
      vk_mode: v.vk_mode,
      vk_peer_id: v.vk_peer_id.trim(),
      events: ANNOUNCE_EVENTS.filter((e) => v.events[e]),
      purchase_amount: v.purchase_amount,
      templates: v.templates,
    };
    // Secrets are write-only: an empty field keeps the stored one.
    if (v.discord_remove) body.discord_webhook_url = null;
    else if (v.discord_webhook_url.trim()) body.discord_webhook_url = v.discord_webhook_url.trim();
    if (v.telegram_remove) body.telegram_bot_token = null;
    else if (v.telegram_bot_token.trim()) body.telegram_bot_token = v.telegram_bot_token.trim();
    if (v.vk_remove) body.vk_token = null;
    else if (v.vk_token.trim()) body.vk_token = v.vk_token.trim();
    const saved = await saveAnnounce(body);
    queryClient.setQueryData(ANNOUNCE_KEY, saved);
    void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
    notify('success', 'Настройки объявлений сохранены');
  }
  const state = (set: boolean) => (set ? <Badge tone="success">настроен</Badge> : <Badge>не настроен</Badge>);
  return (
    <section className="card stack" aria-labelledby="announce-h">
      <h3 id="announce-h">Каналы и события</h3>
      <Form form={form} onSubmit={save}>
        <FieldGroup legend="Discord">
          <p className="muted">
            {state(view.discord.set)} {view.discord.display}
          </p>
          <TextField
            name="discord_webhook_url"
            label="Адрес вебхука"
            type="password"
            autoComplete="off"
            placeholder="https://discord.com/api/webhooks/…"
            hint="Настройки канала → Интеграции → Вебхуки → «Копировать URL». Пустое поле — оставить как есть."
          />
          {view.discord.set && <CheckboxField name="discord_remove" label="Убрать вебхук" />}
        </FieldGroup>
        <FieldGroup legend="Telegram">
          <p className="muted">{state(view.telegram.set)}</p>
          <TextField
            name="telegram_bot_token"
            label="Токен бота"
            type="password"
            autoComplete="off"
            hint="Выдаёт @BotFather. Пустое поле — оставить как есть."
          />
          {view.telegram.set && <CheckboxField name="telegram_remove" label="Убрать токен" />}
          <TextField
            name="telegram_chat_id"
            label="Чат или канал"
            placeholder="@my_channel или -1001234567890"
            hint="Бот должен быть администратором канала."
          />
        </FieldGroup>
        <FieldGroup legend="VK">
          <p className="muted">{state(view.vk.set)}</p>
          <TextField
            name="vk_token"
            label="Ключ доступа сообщества"
            type="password"
            autoComplete="off"
            hint="Управление → Работа с API. Пустое поле — оставить как есть."
          />
          {view.vk.set && <CheckboxField name="vk_remove" label="Убрать ключ" />}
          <TextField name="vk_group_id" label="Номер сообщества" inputMode="numeric" />
          <SelectField
            name="vk_mode"
            label="Куда писать"
            options={[
              { value: 'wall', label: 'На стену сообщества' },
              { value: 'messages', label: 'Сообщением от сообщества' },
            ]}
          />
          <TextField
            name="vk_peer_id"
            label="Получатель сообщений"
            inputMode="numeric"
            hint="Номер беседы (2000000001…) или пользователя — для «Сообщением»."
          />
        </FieldGroup>
        <FieldGroup legend="События">
          {ANNOUNCE_EVENTS.map((e) => (
            <CheckboxField key={e} name={`events.${e}`} label={ANNOUNCE_EVENT_TEXT[e]} />
          ))}
          <SelectField
            name="purchase_amount"
            label="Сумма покупки"
            options={[
              { value: 'hidden', label: 'Скрывать' },
              { value: 'shown', label: 'Показывать' },
            ]}
          />
        </FieldGroup>
        <details>
          <summary>Шаблоны сообщений</summary>
          <FieldGroup legend="Шаблоны">
            {ANNOUNCE_EVENTS.map((e) => (
              <TextAreaField
                key={e}
                name={`templates.${e}`}
                label={ANNOUNCE_EVENT_TEXT[e]}
                rows={3}
                hint={`Подстановки: ${ANNOUNCE_PLACEHOLDERS[e].map((p) => `{${p}}`).join(', ')}. Текст показывается как есть: разметка и упоминания не срабатывают. Пусто — шаблон по умолчанию.`}
              />
            ))}
          </FieldGroup>
        </details>
        <FormErrors />
        <FormActions />
      </Form>
    </section>
  );
}

function TestPanel({ view }: { view: AnnounceSettingsView }) {
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const test = useMutation({
    mutationFn: (channel: AnnounceChannel) => testAnnounce({ channel, event: 'news' }),
    onMutate: () => setResult(null),
    onSuccess: setResult,
    onError: (err) => setResult({ ok: false, message: err instanceof ApiError && err.message ? err.message : 'Не удалось отправить' }),
  });
  return (
    <section className="card stack" aria-labelledby="announce-test-h">
      <h3 id="announce-test-h">Проверка</h3>
      <p className="muted">Пробное сообщение по шаблону новости с примером текста.</p>
      <div className="row">
        {ANNOUNCE_CHANNELS.map((c) => (
          <button key={c} type="button" className="btn" disabled={test.isPending || !view[c].set} onClick={() => test.mutate(c)}>
            В {CHANNEL_TEXT[c]}
          </button>
        ))}
      </div>
      {result && (
        <p className={result.ok ? 'notice notice-success' : 'notice notice-danger'} role="status">
          {result.message}
        </p>
      )}
    </section>
  );
}

function Recent({ view }: { view: AnnounceSettingsView }) {
  if (view.recent.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="announce-recent-h">
      <h3 id="announce-recent-h">Последние сообщения</h3>
      <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {view.recent.map((m) => (
          <li key={m.id} style={{ overflowWrap: 'anywhere' }}>
            <strong>{CHANNEL_TEXT[m.channel]}</strong> · {formatDateTime(m.created_at)} ·{' '}
            <Badge tone={m.state === 'sent' ? 'success' : m.state === 'failed' ? 'danger' : undefined}>{STATE_TEXT[m.state]}</Badge>
            <div className="muted">{m.text.length > 200 ? `${m.text.slice(0, 199)}…` : m.text}</div>
            {m.last_error && m.state !== 'sent' && <div className="muted">{m.last_error}</div>}
          </li>
        ))}
      </ul>
    </section>
  );
}
