import { Link } from 'wouter';
import { SiteSettings, type AdminSiteSettings } from '@kubik/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AdminSection } from '../../components/admin/AdminSection.tsx';
import { Form, FormActions, FormErrors, useSchemaForm } from '../../components/form/Form.tsx';
import { CheckboxField, FieldGroup, ImageUrlField, NumberField, TextAreaField, TextField } from '../../components/form/fields.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { AUDIT_KEY } from '../../lib/query-keys.ts';
import { useNotify } from '../../providers/notifications.tsx';
import { SITE_KEY } from '../../providers/site.tsx';
import { useTitle } from '../../providers/title.ts';
import { ADMIN_SETTINGS_KEY, fetchAdminSettings, saveSettings } from './api.ts';
import { HomeWidgetsSettings } from './HomeWidgetsSettings.tsx';
import { applySiteHead } from './site-head.ts';
import './site.css';

/** Админ-панель → Настройки: the site's name, look, game address, links, footer and legal details. */
export default function AdminSettingsPage() {
  useTitle('Админ-панель: настройки');
  const query = useQuery({ queryKey: ADMIN_SETTINGS_KEY, queryFn: fetchAdminSettings });
  return (
    <AdminSection title="Настройки сайта">
      <QueryState query={query} error="Не удалось загрузить настройки" isEmpty={() => false}>
        {(data) => <SettingsForm key={JSON.stringify(data.value)} data={data} />}
      </QueryState>
      <HomeWidgetsSettings />
    </AdminSection>
  );
}

function SettingsForm({ data }: { data: AdminSiteSettings }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const form = useSchemaForm(SiteSettings, { defaultValues: data.value });
  /** «По умолчанию: …» under a field the owner has changed, so they can go back. */
  const byDefault = (key: keyof SiteSettings, hint?: string) => {
    const d = data.defaults[key];
    const note = data.stored.includes(key) && d !== data.value[key] ? `По умолчанию: ${d === '' ? 'пусто' : d}` : undefined;
    return [hint, note].filter(Boolean).join(' ') || undefined;
  };
  return (
    <Form
      form={form}
      className="form settings-form"
      onSubmit={async (value) => {
        const saved = await saveSettings(value);
        queryClient.setQueryData(ADMIN_SETTINGS_KEY, saved);
        queryClient.setQueryData(SITE_KEY, saved.value);
        applySiteHead(saved.value);
        void queryClient.invalidateQueries({ queryKey: AUDIT_KEY });
        notify('success', 'Настройки сохранены');
      }}
    >
      <FieldGroup legend="Основное">
        <TextField
          name="name"
          label="Название сайта"
          maxLength={64}
          autoComplete="off"
          hint={byDefault('name', 'В шапке, заголовке вкладки и подвале.')}
        />
        <TextAreaField
          name="description"
          label="Краткое описание"
          rows={2}
          maxLength={200}
          hint={byDefault('description', 'Пара строк о сервере: идёт в описание для поисковиков, если оно пустое.')}
        />
        <ImageUrlField name="logo_url" label="Логотип" hint={byDefault('logo_url', 'Квадратная картинка; пусто — стандартный кубик.')} />
        <ImageUrlField
          name="favicon_url"
          label="Значок вкладки"
          hint={byDefault('favicon_url', 'PNG, SVG или ICO; пусто — стандартный.')}
        />
        <TextField
          name="accent_color"
          label="Цвет акцента"
          type="color"
          className="color-input"
          hint={byDefault('accent_color', 'Кнопки, ссылки и выделение.')}
        />
      </FieldGroup>
      <FieldGroup legend="Главная страница">
        <TextField
          name="game_address"
          label="Адрес сервера"
          placeholder="play.example.ru"
          autoComplete="off"
          spellCheck={false}
          hint={byDefault('game_address', 'Показывается на главной и в помощи с кнопкой «Скопировать». Пусто — не показывать.')}
        />
        <ImageUrlField
          name="home_banner_url"
          label="Баннер (необязательно)"
          hint={byDefault(
            'home_banner_url',
            'Широкая картинка над главной, например 1200×400: ивент, обновление, акция. Пусто — без баннера.',
          )}
        />
        <TextField name="home_banner_title" label="Заголовок баннера (необязательно)" maxLength={80} autoComplete="off" />
        <TextAreaField name="home_banner_text" label="Текст баннера (необязательно)" rows={2} maxLength={300} />
        <TextField
          name="home_banner_link"
          label="Ссылка баннера (необязательно)"
          placeholder="/news/12 или https://…"
          autoComplete="off"
          spellCheck={false}
          hint="Куда ведёт баннер: новость, страница доната или внешний сайт."
        />
      </FieldGroup>
      <FieldGroup legend="Поддержка">
        <TextField name="support_vk" label="ВКонтакте" type="url" placeholder="https://vk.com/…" hint={byDefault('support_vk')} />
        <TextField name="support_telegram" label="Telegram" type="url" placeholder="https://t.me/…" hint={byDefault('support_telegram')} />
        <TextField
          name="support_discord"
          label="Discord"
          type="url"
          placeholder="https://discord.gg/…"
          hint={byDefault('support_discord')}
        />
        <TextField
          name="support_email"
          label="Почта поддержки"
          type="email"
          placeholder="support@example.ru"
          hint={byDefault('support_email', 'Пустая ссылка или почта не показывается.')}
        />
      </FieldGroup>
      <FieldGroup legend="Лаунчер">
        <p className="muted">
          Файлы лаунчера для Windows, Linux, macOS и Java загружаются в разделе <Link href="/admin/launcher">Лаунчер</Link>; ссылки ниже
          действуют для систем, которые там не заданы.
        </p>
        <TextField name="launcher_version" label="Версия лаунчера" maxLength={32} hint={byDefault('launcher_version')} />
        <TextField
          name="launcher_windows_url"
          label="Лаунчер для Windows"
          placeholder="/downloads/Launcher.exe или https://…"
          hint={byDefault('launcher_windows_url', 'Файл из папки downloads на сервере (/downloads/…) или внешняя ссылка.')}
        />
        <TextField
          name="launcher_linux_url"
          label="Лаунчер для Linux"
          placeholder="/downloads/Launcher.AppImage или https://…"
          hint={byDefault('launcher_linux_url')}
        />
      </FieldGroup>
      <FieldGroup legend="Подвал и реквизиты">
        <TextAreaField name="footer_text" label="Текст в подвале" rows={3} maxLength={500} hint={byDefault('footer_text')} />
        <TextField
          name="legal_seller"
          label="Продавец"
          maxLength={200}
          placeholder="ИП Иванов Иван Иванович"
          hint={byDefault('legal_seller', 'Платёжные системы требуют показывать продавца и его ИНН/ОГРН.')}
        />
        <TextField name="legal_inn" label="ИНН" inputMode="numeric" maxLength={12} hint={byDefault('legal_inn')} />
        <TextField name="legal_ogrn" label="ОГРН / ОГРНИП" inputMode="numeric" maxLength={15} hint={byDefault('legal_ogrn')} />
      </FieldGroup>
      <FieldGroup legend="Магазин и донат">
        <CheckboxField
          name="guest_purchases"
          label="Покупки без аккаунта"
          hint="В магазине можно купить товар для ника: гость платит картой, предмет ждёт игрока в игре."
        />
        <NumberField name="donation_goal" label="Цель сборов на месяц, ₽" hint="0 — без цели. Полоса прогресса на главной и в «Донате»." />
        <CheckboxField name="show_purchase_amounts" label="Показывать суммы в последних покупках и лучших донатерах" />
      </FieldGroup>
      <FieldGroup legend="Поисковики">
        <TextAreaField
          name="seo_description"
          label="Описание для поисковиков"
          rows={3}
          maxLength={300}
          hint={byDefault('seo_description', 'Тег description: его показывают Яндекс и Google под названием сайта.')}
        />
      </FieldGroup>
      <FormErrors />
      {/* Named by what it saves: the widgets and the social keys below have buttons of their own. */}
      <FormActions submitLabel="Сохранить настройки сайта" />
    </Form>
  );
}
