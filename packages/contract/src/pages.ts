import { z } from 'zod';
import { withLabels } from './common.ts';

// The site's pages in Markdown (rules, help, FAQ, оферта, privacy, contacts and the owner's own
// at /p/{slug}); the server renders them with '@kubik/contract/markdown'.

export const PAGE_BODY_MAX = 100_000;

/** Pages that always exist: they cannot be deleted, and some live at their own address. */
export const BUILTIN_PAGES: Record<string, { path: string; title: string }> = {
  rules: { path: '/rules', title: 'Правила' },
  help: { path: '/help', title: 'Помощь' },
  faq: { path: '/help', title: 'Частые вопросы' },
  offer: { path: '/p/offer', title: 'Публичная оферта' },
  privacy: { path: '/p/privacy', title: 'Политика конфиденциальности' },
  contacts: { path: '/p/contacts', title: 'Контакты' },
};

/** Where a page is shown on the site. */
export function pagePath(slug: string): string {
  return BUILTIN_PAGES[slug]?.path ?? `/p/${slug}`;
}

export const PageSlug = z
  .string({ error: 'Введите адрес страницы' })
  .trim()
  .toLowerCase()
  // Capitals are taken and lowered, so the published pattern admits them too.
  .regex(
    /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,62}[a-zA-Z0-9])?$/,
    'Адрес страницы: латинские буквы, цифры и дефис, до 64 символов (например, vip-rules)',
  );

export const PageSlugParams = withLabels(z.strictObject({ slug: PageSlug }), { slug: 'Адрес страницы' });

export const PagePlace = z.enum(['none', 'footer', 'menu'], { error: 'Выберите, где показывать ссылку: нигде, в подвале или в меню' });
export type PagePlace = z.infer<typeof PagePlace>;
export const PAGE_PLACE_LABELS: Record<PagePlace, string> = { none: 'Нигде', footer: 'В подвале', menu: 'В меню' };

export const PageBody = withLabels(
  z.strictObject({
    title: z.string({ error: 'Введите заголовок' }).trim().min(1, 'Введите заголовок').max(120, 'Заголовок: не длиннее 120 символов'),
    body: z
      .string({ error: 'Текст страницы должен быть строкой' })
      .max(PAGE_BODY_MAX, `Текст страницы: не длиннее ${PAGE_BODY_MAX.toLocaleString('ru-RU')} символов`),
    place: PagePlace.optional(),
    position: z
      .number({ error: 'Порядок: введите число' })
      .int('Порядок: целое число')
      .min(0, 'Порядок: от 0 до 1000')
      .max(1000, 'Порядок: от 0 до 1000')
      .optional(),
  }),
  { title: 'Заголовок', body: 'Текст (Markdown)', place: 'Где ссылка', position: 'Порядок' },
);
export type PageBody = z.input<typeof PageBody>;

export const Page = z.object({
  slug: z.string(),
  title: z.string(),
  /** Markdown, as the owner wrote it. */
  body: z.string(),
  /** The body rendered safely (no raw HTML, only http(s)/mailto/tel/site links). */
  html: z.string(),
  place: PagePlace,
  position: z.number(),
  /** The site's own pages cannot be deleted. */
  builtin: z.boolean(),
  /** Where the page is on the site: /rules, /help or /p/{slug}. */
  path: z.string(),
  /** ISO 8601 */
  updated_at: z.string(),
});
export type Page = z.infer<typeof Page>;

export const PageLink = z.object({ slug: z.string(), title: z.string(), place: PagePlace, path: z.string() });
export type PageLink = z.infer<typeof PageLink>;
/** GET /api/pages: the pages linked from the footer or the menu (filled ones only), in order. */
export const PageLinksResponse = z.object({ pages: z.array(PageLink) });
export type PageLinksResponse = z.infer<typeof PageLinksResponse>;

export const AdminPagesResponse = z.array(Page);
