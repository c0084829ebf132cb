import { z } from 'zod';
import { withLabels } from './common.ts';
import { isSafeImageUrl } from './news.ts';
import { ACCENT } from './accent.ts';

/** The spec's old site answer (GET /api/site), kept for clients that read it; the web app reads SiteSettings. */
export const SiteInfo = z.object({
  name: z.string(),
  launcher: z.object({ version: z.string(), windows_url: z.string(), linux_url: z.string() }),
  support: z.object({ vk: z.string(), telegram: z.string(), discord: z.string() }),
});
export type SiteInfo = z.infer<typeof SiteInfo>;

// ---- Site settings (Админ-панель → Настройки) ----

/** A link the site may put into href/src: http(s), or a path on this site; '' means none. */
const link = (what: string) =>
  z
    .string({ error: `${what}: введите ссылку` })
    .trim()
    .max(2048, `${what}: слишком длинная ссылка`)
    .refine((v) => v === '' || isSafeImageUrl(v), `${what}: ссылка должна начинаться с https://, http:// или / (путь на сайте)`);

const text = (what: string, max: number) =>
  z
    .string({ error: `${what}: введите текст` })
    .trim()
    .max(max, `${what}: не длиннее ${max} символов`)
    .refine((v) => !/[\p{Cc}]/u.test(v.replace(/[\n\r\t]/g, '')), `${what}: недопустимые символы`);

/** A host name or IPv4 address, optionally with a port: play.kubik.ru, mc.example.org:25566. */
const GAME_ADDRESS = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::\d{1,5})?$/i;

export const SiteSettings = withLabels(
  z.strictObject({
    name: text('Название сайта', 64).min(1, 'Введите название сайта'),
    description: text('Краткое описание', 200),
    logo_url: link('Логотип'),
    favicon_url: link('Значок вкладки'),
    accent_color: z.string({ error: 'Цвет акцента: выберите цвет' }).trim().regex(ACCENT, 'Цвет акцента: укажите цвет как #4ade80'),
    game_address: z
      .string({ error: 'Адрес сервера: введите адрес' })
      .trim()
      .max(255, 'Адрес сервера: не длиннее 255 символов')
      .refine(
        (v) => v === '' || GAME_ADDRESS.test(v),
        'Адрес сервера: укажите домен или IP, при необходимости с портом (play.example.ru:25565)',
      )
      .refine((v) => v === '' || !v.includes(':') || Number(v.split(':')[1]) <= 65535, 'Адрес сервера: порт от 1 до 65535'),
    /** The home page's banner: a picture, a title, a line, and where it leads (the owner's news, an event); all optional. */
    home_banner_url: link('Баннер'),
    home_banner_title: text('Заголовок баннера', 80),
    home_banner_text: text('Текст баннера', 300),
    home_banner_link: link('Ссылка баннера'),
    support_vk: link('ВКонтакте'),
    support_telegram: link('Telegram'),
    support_discord: link('Discord'),
    support_email: z
      .string({ error: 'Почта поддержки: введите адрес' })
      .trim()
      .max(254, 'Почта поддержки: слишком длинный адрес')
      .refine((v) => v === '' || z.email().safeParse(v).success, 'Почта поддержки: некорректный адрес'),
    launcher_version: text('Версия лаунчера', 32),
    launcher_windows_url: link('Лаунчер для Windows'),
    launcher_linux_url: link('Лаунчер для Linux'),
    footer_text: text('Текст в подвале', 500),
    legal_seller: text('Продавец', 200),
    legal_inn: z
      .string({ error: 'ИНН: введите цифры' })
      .trim()
      .refine((v) => v === '' || /^(\d{10}|\d{12})$/.test(v), 'ИНН: 10 цифр (организация) или 12 цифр (ИП, самозанятый)'),
    legal_ogrn: z
      .string({ error: 'ОГРН: введите цифры' })
      .trim()
      .refine((v) => v === '' || /^(\d{13}|\d{15})$/.test(v), 'ОГРН: 13 цифр (ОГРН) или 15 цифр (ОГРНИП)'),
    seo_description: text('Описание для поисковиков', 300),
    /** Buying for a nickname without an account (the shop and the donate page); off until the owner turns it on. */
    guest_purchases: z.boolean({ error: 'Покупки без аккаунта: да или нет' }),
    /** The month's donation goal in roubles (0: no goal shown). */
    donation_goal: z
      .number({ error: 'Цель сборов: введите сумму в рублях' })
      .int('Цель сборов: целое число рублей')
      .min(0, 'Цель сборов не может быть отрицательной')
      .max(100_000_000, 'Цель сборов: слишком большая сумма'),
    /** Whether the latest purchases on the home page and /donate show their amounts. */
    show_purchase_amounts: z.boolean({ error: 'Показывать суммы покупок: да или нет' }),
  }),
  {
    name: 'Название сайта',
    description: 'Краткое описание',
    logo_url: 'Логотип',
    favicon_url: 'Значок вкладки',
    accent_color: 'Цвет акцента',
    game_address: 'Адрес сервера',
    home_banner_url: 'Баннер',
    home_banner_title: 'Заголовок баннера',
    home_banner_text: 'Текст баннера',
    home_banner_link: 'Ссылка баннера',
    support_vk: 'ВКонтакте',
    support_telegram: 'Telegram',
    support_discord: 'Discord',
    support_email: 'Почта поддержки',
    launcher_version: 'Версия лаунчера',
    launcher_windows_url: 'Лаунчер для Windows',
    launcher_linux_url: 'Лаунчер для Linux',
    footer_text: 'Текст в подвале',
    legal_seller: 'Продавец',
    legal_inn: 'ИНН',
    legal_ogrn: 'ОГРН / ОГРНИП',
    seo_description: 'Описание для поисковиков',
    guest_purchases: 'Покупки без аккаунта',
    donation_goal: 'Цель сборов на месяц',
    show_purchase_amounts: 'Показывать суммы покупок',
  },
);
export type SiteSettings = z.infer<typeof SiteSettings>;

/** PUT /api/admin/settings: any of the fields; a field left out keeps its value, `null` returns it to the default. */
export const SiteSettingsPatch = withLabels(
  z.strictObject(
    Object.fromEntries(Object.entries(SiteSettings.shape).map(([k, v]) => [k, v.nullable().optional()])) as {
      [K in keyof typeof SiteSettings.shape]: z.ZodOptional<z.ZodNullable<(typeof SiteSettings.shape)[K]>>;
    },
  ),
  (SiteSettings.meta()?.labels ?? {}) as Record<string, string>,
);
export type SiteSettingsPatch = z.input<typeof SiteSettingsPatch>;

/** GET /api/admin/settings: the values, the defaults (from the server's environment) and which fields the owner set. */
export const AdminSiteSettings = z.object({ value: SiteSettings, defaults: SiteSettings, stored: z.array(z.string()) });
export type AdminSiteSettings = z.infer<typeof AdminSiteSettings>;
