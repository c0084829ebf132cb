import { z } from 'zod';
import { withLabels } from './common.ts';

// Schemas of the news feature, shared by the server and the web app.

export const IMAGE_URL_MAX = 2048;

/**
 * An image address the site may put into <img src>: http(s) or a path on this site. Anything
 * else (javascript:, data:, protocol-relative //host, backslashes) is refused.
 */
export function isSafeImageUrl(value: string): boolean {
  if (/[\s\\\p{Cc}]/u.test(value)) return false;
  if (value.startsWith('/')) return !value.startsWith('//');
  // A host without credentials, then an optional path, query or fragment.
  return /^https?:\/\/[^/?#@]+([/?#].*)?$/i.test(value);
}

/** Optional image: '' or null mean none; the server stores null. */
export const OptionalImageUrl = z
  .string({ error: 'Ссылка на изображение должна быть строкой' })
  .trim()
  .max(IMAGE_URL_MAX, 'Слишком длинная ссылка на изображение')
  .refine((v) => v === '' || isSafeImageUrl(v), 'Ссылка на изображение должна начинаться с http://, https:// или / (путь на сайте)')
  .nullable()
  .optional();

export const NewsBody = withLabels(
  z.strictObject({
    title: z.string({ error: 'Введите заголовок' }).trim().min(1, 'Введите заголовок').max(200, 'Заголовок не длиннее 200 символов'),
    content: z
      .string({ error: 'Введите содержание' })
      .trim()
      .min(1, 'Введите содержание')
      .max(20_000, 'Текст новости не длиннее 20 000 символов'),
    image_url: OptionalImageUrl,
  }),
  { title: 'Заголовок', content: 'Текст', image_url: 'Картинка' },
);
export type NewsBody = z.input<typeof NewsBody>;

export const NewsItem = z.object({
  id: z.number(),
  title: z.string(),
  content: z.string(),
  image_url: z.string().nullable(),
  /** ISO 8601 */
  created_at: z.string(),
  updated_at: z.string(),
});
export type NewsItem = z.infer<typeof NewsItem>;

/** The feed a page at a time (the whole feed was 175 KB with 200 items); `next_page` is null on the last. */
export const NEWS_PAGE_SIZE = 12;
export const NewsFeedQuery = z.strictObject({
  page: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'Номер страницы — целое число от 1 до 999')
    .optional(),
});
export const NewsFeedResponse = z.object({ news: z.array(NewsItem), next_page: z.number().int().nullable() });
export type NewsFeedResponse = z.infer<typeof NewsFeedResponse>;

export const NewsListResponse = z.array(NewsItem);
