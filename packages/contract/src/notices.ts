import { z } from 'zod';

// Notices — the bell, shared by the server and the web app.

/** What a notice is about; the web picks its icon by it. */
export const NOTICE_KINDS = [
  'topup', // money credited by a top-up
  'balance', // an administrator's «+/−» (body: their comment)
  'delivery_done', // an order or a privilege was given in game
  'delivery_failed', // a grant failed in game
  'privilege_ending', // a privilege ends in 3 days
  'privilege_ended', // a privilege ended
  'gift', // a gift received
  'ban', // the account was banned
  'unban', // the ban was lifted
  'message', // a message from the administration
  'vote_reward', // a vote on a server top was rewarded, or a month's prize paid
  'referral_reward', // an invited player's top-up paid the inviter
  'support', // a support ticket was answered, assigned or closed
  'subscription', // a subscription's charge is coming, went through or failed
] as const;
export const NoticeKind = z.enum(NOTICE_KINDS);
export type NoticeKind = z.infer<typeof NoticeKind>;

export const NOTICE_TITLE_MAX = 120;
export const NOTICE_BODY_MAX = 2000;

export const Notice = z.object({
  id: z.number(),
  kind: NoticeKind,
  title: z.string(),
  body: z.string().nullable(),
  /** A site path to open, or null. */
  link: z.string().nullable(),
  /** Small facts of the notice (e.g. `{ amount: 10000 }` in kopecks); null when none. */
  data: z.record(z.string(), z.unknown()).nullable(),
  /** Epoch ms. */
  created_at: z.number(),
  /** Epoch ms; null while unread. */
  read_at: z.number().nullable(),
});
export type Notice = z.infer<typeof Notice>;

export const NOTICES_PAGE_SIZE = 20;

export const NoticesQuery = z.object({
  page: z.coerce
    .number({ error: 'Страница: ожидалось число' })
    .int('Страница: ожидалось целое число')
    .min(1, 'Страница: от 1')
    .max(10_000, 'Страница: слишком большой номер')
    .default(1),
});
export type NoticesQuery = z.infer<typeof NoticesQuery>;

export const NoticesResponse = z.object({
  items: z.array(Notice),
  page: z.number(),
  pages: z.number(),
  total: z.number(),
  unread: z.number(),
});
export type NoticesResponse = z.infer<typeof NoticesResponse>;

export const NoticesReadBody = z.union(
  [
    z.strictObject({
      ids: z
        .array(
          z.number({ error: 'ids: ожидались номера уведомлений' }).int('ids: ожидались целые номера').positive('ids: номера больше нуля'),
          {
            error: 'ids: ожидался список номеров',
          },
        )
        .min(1, 'ids: укажите хотя бы одно уведомление')
        .max(100, 'ids: не больше 100 за раз'),
    }),
    z.strictObject({ all: z.literal(true, { error: 'all: ожидалось true' }) }),
  ],
  { error: 'Укажите ids — номера уведомлений — или all: true' },
);
export type NoticesReadBody = z.infer<typeof NoticesReadBody>;

export const NoticesReadResponse = z.object({ unread: z.number() });
export type NoticesReadResponse = z.infer<typeof NoticesReadResponse>;

/** A message from the administration (Админ-панель): to one player (`user_id`) or to everyone (`all`). */
export const AdminNoticeBody = z.strictObject({
  title: z
    .string({ error: 'Заголовок: ожидалась строка' })
    .trim()
    .min(1, 'Введите заголовок')
    .max(NOTICE_TITLE_MAX, `Заголовок: не длиннее ${NOTICE_TITLE_MAX} символов`),
  body: z
    .string({ error: 'Текст: ожидалась строка' })
    .trim()
    .max(NOTICE_BODY_MAX, `Текст: не длиннее ${NOTICE_BODY_MAX} символов`)
    .optional(),
});
export type AdminNoticeBody = z.infer<typeof AdminNoticeBody>;

export const AdminNoticeResponse = z.object({ message: z.string(), sent: z.number() });
export type AdminNoticeResponse = z.infer<typeof AdminNoticeResponse>;

/** Events of GET /api/user/events (text/event-stream). */
export const BalanceEvent = z.object({ balance: z.number() });
export type BalanceEvent = z.infer<typeof BalanceEvent>;
/** `notification`: the new notice and the unread count after it. */
export const NotificationEvent = z.object({ notice: Notice, unread: z.number() });
export type NotificationEvent = z.infer<typeof NotificationEvent>;
/** `read`: notices were marked read (perhaps on another tab); the unread count now. */
export const ReadEvent = z.object({ unread: z.number() });
export type ReadEvent = z.infer<typeof ReadEvent>;
