import { SOCIAL_URL_HOSTS, type SocialProvider, type SocialSettingsBody, type SocialSettingsView } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { OWNER_ONLY_HINT } from '../../lib/owner-only.ts';
import { useAuth } from '../../providers/auth.tsx';
import { useNotify } from '../../providers/notifications.tsx';
import { fetchSocialSettings, PROVIDERS_KEY, saveSocialSettings, SOCIAL_SETTINGS_KEY } from './api.ts';

/** What the form holds: every field as typed; the server checks the values (its errors land beside the fields). */
const Fields = z.object({
  vk_client_id: z.string().max(512),
  vk_client_secret: z.string().max(512),
  vk_base_url: z.string().max(300),
  telegram_bot_name: z.string().max(512),
  telegram_bot_token: z.string().max(512),
  telegram_base_url: z.string().max(300),
  discord_client_id: z.string().max(512),
  discord_client_secret: z.string().max(512),
  discord_base_url: z.string().max(300),
});
type Fields = z.infer<typeof Fields>;

const SECRETS = ['vk_client_secret', 'telegram_bot_token', 'discord_client_secret'] as const;
const ADDRESSES = ['vk_base_url', 'telegram_base_url', 'discord_base_url'] as const;
const SOURCE = { set: 'задан в админ-панели', env: 'задан переменной окружения', unset: 'не задан' } as const;

/** Under a base address: for the owner, where it may lead and what changing it does; for staff, that it is the owner's. */
function addressHint(provider: SocialProvider, owner: boolean): string {
  if (!owner) return `${OWNER_ONLY_HINT}: на этот адрес уходят ключи.`;
  const hosts = SOCIAL_URL_HOSTS[provider];
  return `Только https://${hosts.join(' или https://')} (или адрес из переменной окружения). При смене адреса ключ, заданный здесь, удаляется — введите его заново.`;
}

/** Under a secret: where it comes from now, and why a typed one is gone. */
function secretHint(source: keyof typeof SOURCE, droppedAt: number | null, extra = ''): string {
  const gone = droppedAt === null ? '' : ` Ключ, заданный здесь, удалён ${formatDateTime(droppedAt)}: сменился адрес. Введите его заново.`;
  return `Сейчас: ${SOURCE[source]}.${extra}${gone}`;
}

/** Админ-панель → Настройки → «Вход через соцсети»: the providers' keys; secrets are write-only. */
export function AdminSocialSettings() {
  const query = useQuery({ queryKey: SOCIAL_SETTINGS_KEY, queryFn: fetchSocialSettings });
  return (
    <section className="card" aria-labelledby="admin-social-h">
      <h2 id="admin-social-h">Вход через соцсети</h2>
      <p className="muted">Сервис без ключей не показывается игрокам. Пустое поле — значение из переменных окружения.</p>
      <QueryState query={query} error="Не удалось загрузить ключи входа через соцсети" isEmpty={() => false}>
        {(data) => <SocialForm key={JSON.stringify(data)} data={data} />}
      </QueryState>
    </section>
  );
}

function SocialForm({ data }: { data: SocialSettingsView }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const owner = useAuth().user?.is_admin ?? false;
  const form = useSchemaForm(Fields, {
    defaultValues: {
      vk_client_id: data.vk.client_id,
      vk_client_secret: '',
      vk_base_url: data.vk.base_url,
      telegram_bot_name: data.telegram.bot_name,
      telegram_bot_token: '',
      telegram_base_url: data.telegram.base_url,
      discord_client_id: data.discord.client_id,
      discord_client_secret: '',
      discord_base_url: data.discord.base_url,
    },
  });
  // Staff see the keys' state read-only: the apps a login goes through and their keys decide whom
  // the site believes a player is, so they are the owner's (the server refuses: 403 owner_only).
  const locked = !owner;
  /** A field's own hint, after the staff's «only the owner» when it is read-only for them. */
  const hint = (own: string) => (locked ? `${OWNER_ONLY_HINT}. ${own}` : own);
  async function submit(values: Fields) {
    const body: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(values) as [keyof Fields, string][]) {
      if (!owner && (ADDRESSES as readonly string[]).includes(k)) continue;
      const secret = (SECRETS as readonly string[]).includes(k);
      // A secret left empty stays as it is; a plain field left empty returns to the default.
      if (secret) {
        if (v.trim()) body[k] = v.trim();
      } else body[k] = v.trim() === '' ? null : v.trim();
    }
    const saved = await saveSocialSettings(body as SocialSettingsBody);
    queryClient.setQueryData(SOCIAL_SETTINGS_KEY, saved);
    void queryClient.invalidateQueries({ queryKey: PROVIDERS_KEY });
    notify('success', 'Ключи входа через соцсети сохранены');
  }
  return (
    <Form form={form} onSubmit={submit} className="form">
      <h3>VK ID</h3>
      <TextField
        name="vk_client_id"
        label="ID приложения VK"
        readOnly={locked}
        hint={hint(`Доверенный Redirect URL: ${data.vk.redirect_uri}`)}
      />
      <TextField
        name="vk_client_secret"
        label="Защищённый ключ VK"
        type="password"
        autoComplete="off"
        readOnly={locked}
        hint={hint(secretHint(data.vk.client_secret, data.vk.client_secret_dropped_at, ' Для входа с PKCE не обязателен.'))}
      />
      <TextField name="vk_base_url" label="Адрес VK ID" readOnly={locked} hint={addressHint('vk', owner)} />
      <h3>Telegram</h3>
      <TextField
        name="telegram_bot_name"
        label="Имя бота Telegram"
        readOnly={locked}
        hint={hint('Без @; домен сайта задаётся боту командой /setdomain в @BotFather.')}
      />
      <TextField
        name="telegram_bot_token"
        label="Токен бота Telegram"
        type="password"
        autoComplete="off"
        readOnly={locked}
        hint={hint(secretHint(data.telegram.bot_token, data.telegram.bot_token_dropped_at))}
      />
      <TextField name="telegram_base_url" label="Адрес входа Telegram" readOnly={locked} hint={addressHint('telegram', owner)} />
      <h3>Discord</h3>
      <TextField
        name="discord_client_id"
        label="Client ID Discord"
        readOnly={locked}
        hint={hint(`Redirect: ${data.discord.redirect_uri}`)}
      />
      <TextField
        name="discord_client_secret"
        label="Client Secret Discord"
        type="password"
        autoComplete="off"
        readOnly={locked}
        hint={hint(secretHint(data.discord.client_secret, data.discord.client_secret_dropped_at))}
      />
      <TextField name="discord_base_url" label="Адрес Discord" readOnly={locked} hint={addressHint('discord', owner)} />
      <FormErrors />
      {/* Its own label: the settings page has another «Сохранить» above. Staff have nothing here to save. */}
      {owner && <FormActions submitLabel="Сохранить ключи" />}
    </Form>
  );
}
