import { z } from 'zod';
import { withLabels } from './common.ts';
import { BanInfo } from './bans.ts';
import { isSafeImageUrl } from './news.ts';

// Support tickets (/support for players, Админ-панель → Обращения for staff with `support`), shared
// by the server and the web app. Texts are plain: the web shows them as text, never as HTML.

/** открыт: waits for staff; ждёт ответа игрока: staff answered; закрыт. */
export const SUPPORT_STATES = ['open', 'waiting', 'closed'] as const;
export type SupportState = (typeof SUPPORT_STATES)[number];
export const SUPPORT_STATE_TEXT: Record<SupportState, string> = {
  open: 'Открыт',
  waiting: 'Ждёт ответа игрока',
  closed: 'Закрыт',
};

/** question: a ticket of an owner's category; appeal: a banned player's appeal of the ban in force. */
export const SUPPORT_KINDS = ['question', 'appeal'] as const;
export type SupportKind = (typeof SUPPORT_KINDS)[number];
export const SUPPORT_KIND_TEXT: Record<SupportKind, string> = { question: 'Вопрос', appeal: 'Обжалование блокировки' };

/** What a ticket may be about: the player's own shop order, delivery or top-up. */
export const SUPPORT_LINK_KINDS = ['order', 'delivery', 'payment'] as const;
export type SupportLinkKind = (typeof SUPPORT_LINK_KINDS)[number];
export const SUPPORT_LINK_KIND_TEXT: Record<SupportLinkKind, string> = { order: 'Покупка', delivery: 'Выдача', payment: 'Пополнение' };

/** Custom fields of a category: a line, a text, a number, a choice, a check box. */
export const SUPPORT_FIELD_TYPES = ['text', 'textarea', 'number', 'select', 'checkbox'] as const;
export type SupportFieldType = (typeof SUPPORT_FIELD_TYPES)[number];
export const SUPPORT_FIELD_TYPE_TEXT: Record<SupportFieldType, string> = {
  text: 'Строка',
  textarea: 'Текст',
  number: 'Число',
  select: 'Выбор из списка',
  checkbox: 'Флажок',
};

export const SUPPORT_LIMITS = {
  subjectMax: 120,
  messageMax: 5000,
  /** Open (not closed) tickets one player may have at once. */
  openTickets: 3,
  /** New tickets, replies and uploads one player may send in a rate-limit window (RATE_LIMIT_WINDOW_SEC, 15 min). */
  ticketsPerWindow: 6,
  messagesPerWindow: 30,
  uploadsPerWindow: 20,
  attachmentsPerMessage: 4,
  /** Pictures uploaded and not yet sent with a message, per player (older ones are forgotten after a day). */
  pendingUploads: 12,
  fieldsPerCategory: 10,
  optionsPerField: 20,
  textAnswerMax: 200,
  textareaAnswerMax: 2000,
  pageSize: 20,
} as const;

// ---- Attachments: still pictures, checked before decoding and encoded afresh (server support.images.ts)

export const SUPPORT_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const SUPPORT_IMAGE_MAX_SIDE = 4096;
export const SUPPORT_IMAGE_MAX_PIXELS = 16_777_216;
export const SUPPORT_IMAGE_ACCEPT = 'image/png,image/jpeg,image/webp';

export const SUPPORT_TEXTS = {
  notMultipart: 'Отправьте картинку формой multipart/form-data с файлом в поле «file»',
  noFile: 'Выберите картинку (PNG, JPEG или WebP)',
  badForm: 'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
  unknownField: 'В форме загрузки есть лишние поля: нужен только файл «file»',
  oneFile: 'Загрузите один файл',
  tooBig: 'Файл слишком большой: не больше 5 МБ',
  wrongType: 'Прикрепить можно только картинку PNG, JPEG или WebP',
  animated: 'Анимированные картинки не принимаются: прикрепите снимок экрана',
  broken: 'Файл картинки повреждён или обрезан',
  tooLarge: `Картинка слишком большая: не больше ${SUPPORT_IMAGE_MAX_SIDE}×${SUPPORT_IMAGE_MAX_SIDE} точек`,
  tooManyPending: 'Слишком много неотправленных картинок: отправьте сообщение с ними или подождите',
  attachmentNotFound: 'Картинка не найдена',
  attachmentUnusable: 'Эту картинку нельзя прикрепить: загрузите её заново',
  ticketNotFound: 'Обращение не найдено',
  categoryNotFound: 'Такой категории нет: выберите другую',
  closed: 'Обращение закрыто: создайте новое, если вопрос остался',
  alreadyClosed: 'Обращение уже закрыто',
  notClosed: 'Обращение не закрыто',
  tooManyOpen: `У вас уже ${SUPPORT_LIMITS.openTickets} открытых обращения: дождитесь ответа или закройте одно из них`,
  linkNotFound: 'Это не ваша покупка, выдача или пополнение: выберите из списка',
  notSupportStaff: 'Назначить можно только сотрудника с правом «Обращения»',
  appealLinkInvalid: 'Ссылка для обжалования недействительна или устарела: войдите с паролем ещё раз, чтобы получить новую',
  appealBanOver: 'Блокировка уже снята: войдите в аккаунт',
  appealExists: 'Эта блокировка уже обжалуется: ответ придёт на почту, переписка — по ссылке из письма',
  cannedNotFound: 'Шаблон ответа не найден',
} as const;

// ---- Categories

/** Whether an icon is a picture's address (else an emoji). */
export const isImageIcon = (icon: string) => /^(\/|https?:)/i.test(icon);

/** A trimmed text; one line unless `multiline` (then line breaks and tabs are kept). */
const text = (label: string, min: number, max: number, multiline = false) =>
  z
    .string({ error: `${label}: ожидалась строка` })
    .trim()
    .min(min, min > 0 ? `Заполните поле «${label}»` : `${label}: ожидалась строка`)
    .max(max, `${label}: не длиннее ${max} символов`)
    .refine(
      (v) => !/[\p{Cc}\u2028\u2029]/u.test(multiline ? v.replace(/[\n\r\t]/g, '') : v),
      multiline ? `${label}: недопустимые символы` : `${label}: одной строкой, без управляющих символов`,
    );

const Id = (what: string) =>
  z
    .number({ error: `${what}: ожидался номер` })
    .int(`${what}: ожидался номер`)
    .positive(`${what}: ожидался номер`)
    .max(2_147_483_647, `${what}: ожидался номер`);

/** An emoji, or a picture's address (best one uploaded in Админ-панель → Картинки: /media/…); null: none. */
export const SUPPORT_ICON_HINT = 'Эмодзи (например 💳) или адрес картинки (лучше загруженной в разделе «Картинки»: /media/…)';
export function isSupportIcon(value: string): boolean {
  if (isImageIcon(value)) return isSafeImageUrl(value);
  // A few pictographs: no letters, digits, punctuation or spaces (nothing that reads as a word).
  return [...value].length <= 4 && /^\p{Extended_Pictographic}/u.test(value) && !/[\p{L}\p{N}\p{P}\s<>]/u.test(value);
}

export const SupportFieldDef = z.strictObject({
  /** Stable name of the answer (a–z, 0–9, _); the server makes one for a new field. */
  key: z
    .string({ error: 'Ключ поля: ожидалась строка' })
    .regex(/^[a-z][a-z0-9_]{0,31}$/, 'Ключ поля: латинские буквы, цифры и _')
    .optional(),
  label: text('Название поля', 1, 60),
  type: z.enum(SUPPORT_FIELD_TYPES, { error: 'Тип поля: выберите из списка' }),
  required: z.boolean({ error: 'Обязательное: да или нет' }).default(false),
  /** The choices of a 'select' field. */
  options: z
    .array(text('Вариант', 1, 100), { error: 'Варианты: ожидался список' })
    .max(SUPPORT_LIMITS.optionsPerField, `Не больше ${SUPPORT_LIMITS.optionsPerField} вариантов`)
    .optional(),
});
export type SupportFieldDef = z.infer<typeof SupportFieldDef>;

export const SupportCategoryBody = withLabels(
  z.strictObject({
    name: text('Название', 1, 60),
    description: text('Описание', 0, 500, true).default(''),
    icon: z
      .string({ error: 'Значок: ожидалась строка' })
      .trim()
      .max(100, 'Значок: не длиннее 100 символов')
      .refine((v) => v === '' || isSupportIcon(v), `Значок: ${SUPPORT_ICON_HINT.toLowerCase()}`)
      .nullable()
      .optional(),
    fields: z
      .array(SupportFieldDef, { error: 'Поля: ожидался список' })
      .max(SUPPORT_LIMITS.fieldsPerCategory, `Не больше ${SUPPORT_LIMITS.fieldsPerCategory} полей`)
      .superRefine((fields, ctx) => {
        fields.forEach((f, i) => {
          if (f.type === 'select' && (f.options?.length ?? 0) < 2)
            ctx.addIssue({ code: 'custom', path: [i, 'options'], message: 'Выбор из списка: укажите хотя бы два варианта' });
          if (f.key && fields.findIndex((o) => o.key === f.key) !== i)
            ctx.addIssue({ code: 'custom', path: [i, 'key'], message: 'Ключ поля повторяется' });
        });
      })
      .default([]),
    /** Place in the list (smaller first). */
    position: z
      .number({ error: 'Порядок: ожидалось число' })
      .int('Порядок: целое число')
      .min(0, 'Порядок: от 0')
      .max(10_000, 'Порядок: до 10 000')
      .default(0),
    /** Off: not offered for new tickets; old tickets keep it. */
    enabled: z.boolean({ error: 'Включена: да или нет' }).default(true),
  }),
  { name: 'Название', description: 'Описание', icon: 'Значок', fields: 'Поля', position: 'Порядок', enabled: 'Включена' },
);
export type SupportCategoryBody = z.input<typeof SupportCategoryBody>;

export const SupportField = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(SUPPORT_FIELD_TYPES),
  required: z.boolean(),
  options: z.array(z.string()),
});
export type SupportField = z.infer<typeof SupportField>;

export const SupportCategory = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  icon: z.string().nullable(),
  fields: z.array(SupportField),
  position: z.number(),
  enabled: z.boolean(),
});
export type SupportCategory = z.infer<typeof SupportCategory>;
export const SupportCategoryList = z.array(SupportCategory);

/** An answer to a custom field: text, a number or a check box. */
export const SupportAnswer = z.union([z.string().max(SUPPORT_LIMITS.textareaAnswerMax, 'Ответ слишком длинный'), z.number(), z.boolean()], {
  error: 'Ответ: ожидались текст, число или да/нет',
});
export type SupportAnswer = z.infer<typeof SupportAnswer>;

/**
 * The problems of a player's answers to a category's fields, each at `fields.<key>` with its text
 * (the server refuses with the first; the form shows them all beside their fields).
 */
export function fieldAnswerProblems(defs: readonly SupportField[], answers: Record<string, unknown>): { key: string; message: string }[] {
  const problems: { key: string; message: string }[] = [];
  const known = new Set(defs.map((d) => d.key));
  for (const key of Object.keys(answers)) if (!known.has(key)) problems.push({ key, message: 'Такого поля в категории нет' });
  for (const d of defs) {
    const v = answers[d.key];
    const empty = v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || v === false;
    if (empty) {
      if (d.required)
        problems.push({ key: d.key, message: d.type === 'checkbox' ? `Отметьте «${d.label}»` : `Заполните поле «${d.label}»` });
      continue;
    }
    switch (d.type) {
      case 'checkbox':
        if (typeof v !== 'boolean') problems.push({ key: d.key, message: `«${d.label}»: да или нет` });
        break;
      case 'number': {
        const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim().replace(',', '.')) : NaN;
        if (!Number.isFinite(n) || Math.abs(n) > 1e12) problems.push({ key: d.key, message: `«${d.label}»: введите число` });
        break;
      }
      case 'select':
        if (typeof v !== 'string' || !d.options.includes(v)) problems.push({ key: d.key, message: `«${d.label}»: выберите из списка` });
        break;
      default: {
        const max = d.type === 'text' ? SUPPORT_LIMITS.textAnswerMax : SUPPORT_LIMITS.textareaAnswerMax;
        if (typeof v !== 'string') problems.push({ key: d.key, message: `«${d.label}»: ожидался текст` });
        else if (v.trim().length > max) problems.push({ key: d.key, message: `«${d.label}»: не длиннее ${max} символов` });
      }
    }
  }
  return problems;
}

// ---- Tickets

const Message = text('Сообщение', 1, SUPPORT_LIMITS.messageMax, true);
const AttachmentIds = z
  .array(Id('Картинка'), { error: 'Картинки: ожидался список' })
  .max(SUPPORT_LIMITS.attachmentsPerMessage, `Не больше ${SUPPORT_LIMITS.attachmentsPerMessage} картинок в сообщении`)
  .refine((ids) => new Set(ids).size === ids.length, 'Картинка прикреплена дважды')
  .default([]);

export const SupportLinkRef = z.strictObject({
  kind: z.enum(SUPPORT_LINK_KINDS, { error: 'Выберите покупку, выдачу или пополнение' }),
  id: z.string({ error: 'Номер: ожидалась строка' }).regex(/^[0-9A-Za-z-]{1,64}$/, 'Номер покупки, выдачи или пополнения указан неверно'),
});
export type SupportLinkRef = z.infer<typeof SupportLinkRef>;

export const SupportTicketBody = withLabels(
  z.strictObject({
    category_id: Id('Категория'),
    subject: text('Тема', 1, SUPPORT_LIMITS.subjectMax),
    message: Message,
    /** Answers to the category's fields, by their keys. */
    fields: z.record(z.string().max(32, 'Ключ поля слишком длинный'), SupportAnswer, { error: 'Поля: ожидался объект' }).default({}),
    link: SupportLinkRef.nullable().optional(),
    attachment_ids: AttachmentIds,
  }),
  { category_id: 'Категория', subject: 'Тема', message: 'Сообщение', fields: 'Поля', link: 'Связано с', attachment_ids: 'Картинки' },
);
export type SupportTicketBody = z.input<typeof SupportTicketBody>;

export const SupportMessageBody = withLabels(z.strictObject({ message: Message, attachment_ids: AttachmentIds }), {
  message: 'Сообщение',
  attachment_ids: 'Картинки',
});
export type SupportMessageBody = z.input<typeof SupportMessageBody>;

/** A staff member's answer; `internal`: a note only staff see (the player is not told). */
export const SupportStaffMessageBody = withLabels(
  z.strictObject({
    message: Message,
    internal: z.boolean({ error: 'Заметка: да или нет' }).default(false),
    attachment_ids: AttachmentIds,
    /** Close the ticket with this answer. */
    close: z.boolean({ error: 'Закрыть: да или нет' }).default(false),
  }),
  { message: 'Сообщение', internal: 'Внутренняя заметка', attachment_ids: 'Картинки', close: 'Закрыть' },
);
export type SupportStaffMessageBody = z.input<typeof SupportStaffMessageBody>;

export const SupportAssignBody = withLabels(z.strictObject({ assignee_id: Id('Сотрудник').nullable() }), { assignee_id: 'Сотрудник' });
export type SupportAssignBody = z.infer<typeof SupportAssignBody>;

export const SupportAttachment = z.object({
  id: z.number(),
  name: z.string(),
  width: z.number(),
  height: z.number(),
  /** Bytes of the stored (re-encoded) file. */
  size: z.number(),
  /** Where the picture is read (only by the ticket's author and staff). */
  url: z.string(),
});
export type SupportAttachment = z.infer<typeof SupportAttachment>;

export const SupportMessage = z.object({
  id: z.number(),
  text: z.string(),
  /** Written by staff (or the ticket's author). */
  staff: z.boolean(),
  author: z.string(),
  /** A staff-only note: never in a player's answer. */
  internal: z.boolean(),
  /** Epoch ms. */
  created_at: z.number(),
  attachments: z.array(SupportAttachment),
});
export type SupportMessage = z.infer<typeof SupportMessage>;

export const SupportLink = z.object({ kind: z.enum(SUPPORT_LINK_KINDS), id: z.string(), label: z.string() });
export type SupportLink = z.infer<typeof SupportLink>;

const TicketHead = {
  id: z.number(),
  kind: z.enum(SUPPORT_KINDS),
  subject: z.string(),
  state: z.enum(SUPPORT_STATES),
  category: z.object({ id: z.number(), name: z.string(), icon: z.string().nullable() }).nullable(),
  /** Who wrote last: a staff answer waits for the player. */
  last_author: z.enum(['player', 'staff']),
  /** Epoch ms. */
  created_at: z.number(),
  updated_at: z.number(),
  closed_at: z.number().nullable(),
};

export const SupportTicketSummary = z.object(TicketHead);
export type SupportTicketSummary = z.infer<typeof SupportTicketSummary>;

export const SupportTicket = z.object({
  ...TicketHead,
  /** The answers to the category's fields, as they were asked. */
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  link: SupportLink.nullable(),
  messages: z.array(SupportMessage),
});
export type SupportTicket = z.infer<typeof SupportTicket>;

export const SupportTicketPage = z.object({
  items: z.array(SupportTicketSummary),
  page: z.number(),
  pages: z.number(),
  total: z.number(),
});
export type SupportTicketPage = z.infer<typeof SupportTicketPage>;

export const SupportPageQuery = z.strictObject({
  page: z.coerce
    .number({ error: 'Страница: ожидалось число' })
    .int('Страница: ожидалось целое число')
    .min(1, 'Страница: от 1')
    .max(10_000, 'Страница: слишком большой номер')
    .default(1),
});

/** What the player may link a ticket to: their latest orders, deliveries and top-ups. */
export const SupportLinkChoices = z.object({ items: z.array(SupportLink) });
export type SupportLinkChoices = z.infer<typeof SupportLinkChoices>;

export const SupportCreated = z.object({ id: z.number() });

// ---- Staff

const Person = z.object({ id: z.number(), username: z.string() });

export const AdminSupportTicketSummary = z.object({ ...TicketHead, player: Person, assignee: Person.nullable() });
export type AdminSupportTicketSummary = z.infer<typeof AdminSupportTicketSummary>;

export const AdminSupportTicketPage = z.object({
  items: z.array(AdminSupportTicketSummary),
  page: z.number(),
  pages: z.number(),
  total: z.number(),
  /** Open tickets waiting for staff (the menu's count). */
  open: z.number(),
});
export type AdminSupportTicketPage = z.infer<typeof AdminSupportTicketPage>;

export const AdminSupportTicket = SupportTicket.extend({
  player: Person.extend({ email: z.string() }),
  assignee: Person.nullable(),
  /** The ban an appeal is about: its reason and term, and whether it is still in force. */
  ban: z.object({ id: z.number(), reason: z.string(), since: z.number(), until: z.number().nullable(), lifted: z.boolean() }).nullable(),
});
export type AdminSupportTicket = z.infer<typeof AdminSupportTicket>;

export const AdminSupportQuery = z.strictObject({
  page: SupportPageQuery.shape.page,
  state: z.enum([...SUPPORT_STATES, 'active'], { error: 'Состояние: выберите из списка' }).optional(),
  kind: z.enum(SUPPORT_KINDS, { error: 'Вид: выберите из списка' }).optional(),
  category_id: z.coerce
    .number({ error: 'Категория: ожидался номер' })
    .int('Категория: ожидался номер')
    .positive('Категория: ожидался номер')
    .max(2_147_483_647, 'Категория: ожидался номер')
    .optional(),
  /** 'me', 'none' or a staff member's id. */
  assignee: z
    .string({ error: 'Ответственный: ожидалась строка' })
    .regex(/^(me|none|[1-9][0-9]{0,9})$/, 'Ответственный: me, none или номер сотрудника')
    .optional(),
  /** A player's name, or part of the subject. */
  q: z
    .string({ error: 'Поиск: ожидалась строка' })
    .trim()
    .max(60, 'Поиск: не длиннее 60 символов')
    // eslint-disable-next-line no-control-regex -- a search never holds control characters (PostgreSQL refuses NUL)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'Поиск: недопустимые символы')
    .optional(),
});
export type AdminSupportQuery = z.infer<typeof AdminSupportQuery>;

/** Staff who may be given a ticket: the owner and everyone whose role holds `support`. */
export const SupportStaffList = z.object({ staff: z.array(Person) });
export type SupportStaffList = z.infer<typeof SupportStaffList>;

export const CannedAnswerBody = withLabels(z.strictObject({ title: text('Название', 1, 80), text: Message }), {
  title: 'Название',
  text: 'Текст',
});
export type CannedAnswerBody = z.infer<typeof CannedAnswerBody>;
export const CannedAnswer = z.object({ id: z.number(), title: z.string(), text: z.string() });
export type CannedAnswer = z.infer<typeof CannedAnswer>;
export const CannedAnswerList = z.array(CannedAnswer);

// ---- Appeals: a banned player cannot log in; a signed link stands for the login (docs/support.md)

/** The header that carries an appeal link's token (from the login's refusal or a letter). */
export const APPEAL_TOKEN_HEADER = 'x-appeal-token';

export const AppealHeaders = z.object({
  [APPEAL_TOKEN_HEADER]: z
    .string({ error: 'Ссылка для обжалования недействительна' })
    .min(20, 'Ссылка для обжалования недействительна')
    .max(100, 'Ссылка для обжалования недействительна'),
});

export const AppealBody = withLabels(z.strictObject({ message: Message }), { message: 'Сообщение' });
export type AppealBody = z.infer<typeof AppealBody>;

/** The appeal page: the ban, and the appeal's thread once it is written. */
export const AppealView = z.object({ username: z.string(), ban: BanInfo, ticket: SupportTicket.nullable() });
export type AppealView = z.infer<typeof AppealView>;
