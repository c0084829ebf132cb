import { z } from 'zod';
import { withLabels } from './common.ts';

// The seller's fiscal details (54-ФЗ receipts), the legal documents a player accepts and the
// receipts sent through the payment providers.

// An organisation first: its numbers (10-digit ИНН, 13-digit ОГРН) are what a form filled from the
// schema alone gets right.
export const LEGAL_FORMS = ['ooo', 'ip', 'self_employed'] as const;
export const LegalForm = z.enum(LEGAL_FORMS, { error: 'Форма продавца: выберите ИП, ООО или самозанятый' });
export type LegalForm = z.infer<typeof LegalForm>;
export const LEGAL_FORM_TEXT: Record<LegalForm, string> = {
  ip: 'Индивидуальный предприниматель',
  ooo: 'Организация (ООО)',
  self_employed: 'Самозанятый (налог на профессиональный доход)',
};

/** YooKassa's `tax_system_code` (1–6), as its reference names them. */
export const TAX_SYSTEM_TEXT: Record<number, string> = {
  1: 'Общая (ОСН)',
  2: 'Упрощённая, доходы (УСН)',
  3: 'Упрощённая, доходы минус расходы',
  4: 'ЕНВД',
  5: 'ЕСХН',
  6: 'Патентная',
};

/** YooKassa's `vat_code` (1–12); 11 and 12 are the 22 % rates of 2026. */
export const FISCAL_VAT_TEXT: Record<number, string> = {
  1: 'Без НДС',
  2: 'НДС 0 %',
  3: 'НДС 10 %',
  4: 'НДС 20 %',
  5: 'НДС 10/110',
  6: 'НДС 20/120',
  7: 'НДС 5 %',
  8: 'НДС 7 %',
  9: 'НДС 5/105',
  10: 'НДС 7/107',
  11: 'НДС 22 %',
  12: 'НДС 22/122',
};

/** Payment subjects (признак предмета расчёта) that fit what a game site sells. */
export const PAYMENT_SUBJECTS = ['service', 'commodity', 'job', 'intellectual_activity', 'property_right', 'composite', 'another'] as const;
export const PaymentSubject = z.enum(PAYMENT_SUBJECTS, { error: 'Предмет расчёта: выберите из списка' });
export type PaymentSubject = z.infer<typeof PaymentSubject>;
export const PAYMENT_SUBJECT_TEXT: Record<PaymentSubject, string> = {
  service: 'Услуга',
  commodity: 'Товар',
  job: 'Работа',
  intellectual_activity: 'Результат интеллектуальной деятельности',
  property_right: 'Имущественное право',
  composite: 'Составной предмет расчёта',
  another: 'Иной предмет расчёта',
};

export const AGE_MARKS = ['0+', '6+', '12+', '16+', '18+'] as const;
export const AgeMark = z.enum(AGE_MARKS, { error: 'Возрастная маркировка: 0+, 6+, 12+, 16+ или 18+' });
export type AgeMark = z.infer<typeof AgeMark>;

const digits = (s: string) => [...s].map(Number);

/** ИНН check digits: 10 digits (an organisation) or 12 (a person: ИП, самозанятый). */
export function innValid(v: string): boolean {
  if (!/^(\d{10}|\d{12})$/.test(v)) return false;
  const n = digits(v);
  const check = (w: number[]) => (w.reduce((s, k, i) => s + k * n[i]!, 0) % 11) % 10;
  if (v.length === 10) return check([2, 4, 10, 3, 5, 9, 4, 6, 8]) === n[9];
  return check([7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) === n[10] && check([3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8]) === n[11];
}

/** ОГРН (13 digits, the rest of the first 12 by 11) and ОГРНИП (15, of the first 14 by 13) check digits. */
export function ogrnValid(v: string): boolean {
  if (!/^(\d{13}|\d{15})$/.test(v)) return false;
  const m = v.length === 13 ? 11n : 13n;
  return Number((BigInt(v.slice(0, -1)) % m) % 10n) === Number(v.at(-1));
}

const text = (what: string, max: number) =>
  z
    .string({ error: `${what}: введите текст` })
    .trim()
    .max(max, `${what}: не длиннее ${max} символов`)
    .refine((v) => !/[\p{Cc}]/u.test(v), `${what}: недопустимые символы`);

const code = (what: string, max: number) =>
  z
    .number({ error: `${what}: выберите из списка` })
    .int(`${what}: выберите из списка`)
    .min(1, `${what}: код от 1 до ${max}`)
    .max(max, `${what}: код от 1 до ${max}`);

export const VatCode = code('Ставка НДС', 12);
export const TaxSystemCode = code('Система налогообложения', 6);

const FISCAL_FIELDS = {
  legal_form: LegalForm,
  name: text('Наименование продавца', 200),
  inn: z
    .string({ error: 'ИНН: введите цифры' })
    .trim()
    .refine((v) => v === '' || /^(\d{10}|\d{12})$/.test(v), 'ИНН: 10 цифр (организация) или 12 цифр (ИП, самозанятый)')
    .refine((v) => v === '' || !/^(\d{10}|\d{12})$/.test(v) || innValid(v), 'ИНН: неверная контрольная цифра — проверьте номер'),
  ogrn: z
    .string({ error: 'ОГРН: введите цифры' })
    .trim()
    .refine((v) => v === '' || /^(\d{13}|\d{15})$/.test(v), 'ОГРН: 13 цифр (ОГРН организации) или 15 цифр (ОГРНИП)')
    .refine((v) => v === '' || !/^(\d{13}|\d{15})$/.test(v) || ogrnValid(v), 'ОГРН: неверная контрольная цифра — проверьте номер'),
  tax_system_code: TaxSystemCode,
  vat_code: VatCode,
  email: z
    .string({ error: 'Почта продавца: введите адрес' })
    .trim()
    .max(254, 'Почта продавца: слишком длинный адрес')
    .refine((v) => v === '' || z.email().safeParse(v).success, 'Почта продавца: некорректный адрес'),
  phone: z
    .string({ error: 'Телефон продавца: введите номер' })
    .trim()
    .refine((v) => v === '' || /^\+?[\d\s()-]{10,20}$/.test(v), 'Телефон продавца: номер вида +7 900 000-00-00'),
  address: text('Адрес продавца', 300),
  age_mark: AgeMark,
};

const FISCAL_LABELS = {
  legal_form: 'Форма продавца',
  name: 'Наименование продавца',
  inn: 'ИНН',
  ogrn: 'ОГРН / ОГРНИП',
  tax_system_code: 'Система налогообложения',
  vat_code: 'Ставка НДС',
  email: 'Почта продавца',
  phone: 'Телефон продавца',
  address: 'Адрес продавца',
  age_mark: 'Возрастная маркировка',
};

type FiscalShape = typeof FISCAL_FIELDS;

/** The form and the numbers must agree: an ООО has a 10-digit ИНН and a 13-digit ОГРН, a person 12 and 15. */
function agree(v: { legal_form?: LegalForm; inn?: string; ogrn?: string }, ctx: z.RefinementCtx) {
  if (!v.legal_form) return;
  const org = v.legal_form === 'ooo';
  if (v.inn && innValid(v.inn) && (v.inn.length === 10) !== org)
    ctx.addIssue({
      code: 'custom',
      path: ['inn'],
      message: org ? 'ИНН: у организации 10 цифр' : 'ИНН: у ИП и самозанятого 12 цифр',
    });
  if (v.ogrn && ogrnValid(v.ogrn)) {
    if (v.legal_form === 'self_employed')
      ctx.addIssue({ code: 'custom', path: ['ogrn'], message: 'ОГРН: у самозанятого его нет — оставьте поле пустым' });
    else if ((v.ogrn.length === 13) !== org)
      ctx.addIssue({ code: 'custom', path: ['ogrn'], message: org ? 'ОГРН: у организации 13 цифр' : 'ОГРНИП: 15 цифр' });
  }
}

export const FiscalSettings = withLabels(z.strictObject(FISCAL_FIELDS).superRefine(agree), FISCAL_LABELS);
export type FiscalSettings = z.infer<typeof FiscalSettings>;

/** PUT /api/admin/fiscal: the fields the outside sends; the rest keep their values. */
export const FiscalSettingsBody = withLabels(
  z
    .strictObject(
      Object.fromEntries(Object.entries(FISCAL_FIELDS).map(([k, v]) => [k, v.optional()])) as {
        [K in keyof FiscalShape]: z.ZodOptional<FiscalShape[K]>;
      },
    )
    .superRefine(agree),
  FISCAL_LABELS,
);
export type FiscalSettingsBody = z.input<typeof FiscalSettingsBody>;

export const AdminFiscal = z.object({
  value: z.object(FISCAL_FIELDS),
  /** What is still missing for receipts to be issued (Russian), empty when ready. */
  missing: z.array(z.string()),
});
export type AdminFiscal = z.infer<typeof AdminFiscal>;

// ---- Per item and tier: the VAT rate and payment subject of its receipt line ----

export const FiscalItemKind = z.enum(['shop_item', 'tier'], { error: 'Вид: shop_item или tier' });
export type FiscalItemKind = z.infer<typeof FiscalItemKind>;
export const FiscalItemParams = withLabels(
  z.strictObject({
    kind: FiscalItemKind,
    id: z.coerce
      .number({ error: 'Некорректный идентификатор' })
      .int('Некорректный идентификатор')
      .positive('Некорректный идентификатор')
      .max(2_147_483_647, 'Некорректный идентификатор'),
  }),
  { kind: 'Вид', id: 'Идентификатор' },
);
export const FiscalItemBody = withLabels(z.strictObject({ vat_code: VatCode.nullable(), payment_subject: PaymentSubject.nullable() }), {
  vat_code: 'Ставка НДС',
  payment_subject: 'Предмет расчёта',
});
export type FiscalItemBody = z.infer<typeof FiscalItemBody>;
export const FiscalItem = z.object({
  kind: FiscalItemKind,
  id: z.number(),
  title: z.string(),
  /** The owner's choice, or null (the default applies). */
  vat_code: z.number().nullable(),
  payment_subject: PaymentSubject.nullable(),
  /** What goes into the receipt. */
  effective_vat_code: z.number(),
  effective_payment_subject: PaymentSubject,
});
export type FiscalItem = z.infer<typeof FiscalItem>;

// ---- Legal documents and consent ----

export const LEGAL_DOCS = ['offer', 'privacy', 'refund'] as const;
export const LegalDocKind = z.enum(LEGAL_DOCS, { error: 'Документ: offer, privacy или refund' });
export type LegalDocKind = z.infer<typeof LegalDocKind>;
export const LEGAL_DOC_TEXT: Record<LegalDocKind, string> = {
  offer: 'Публичная оферта',
  privacy: 'Политика обработки персональных данных',
  refund: 'Правила возврата',
};
/** What a player accepts: the offer and the personal-data policy, and the adult-or-parental-consent confirmation. */
export const CONSENT_KINDS = ['offer', 'privacy', 'age'] as const;
export const ConsentKind = z.enum(CONSENT_KINDS, { error: 'Согласие: offer, privacy или age' });
export type ConsentKind = z.infer<typeof ConsentKind>;
export const CONSENT_TEXT: Record<ConsentKind, string> = {
  offer: 'Принимаю условия публичной оферты',
  privacy: 'Даю согласие на обработку персональных данных',
  age: 'Мне есть 18 лет или у меня есть согласие родителей',
};
export const Consents = z
  .array(ConsentKind, { error: 'Согласия: список из offer, privacy, age' })
  .max(3, 'Согласия: не больше трёх')
  .optional();

export const LegalDocParams = withLabels(z.strictObject({ kind: LegalDocKind }), { kind: 'Документ' });
export const LegalDocBody = withLabels(
  z.strictObject({
    title: z.string({ error: 'Введите заголовок' }).trim().min(1, 'Введите заголовок').max(120, 'Заголовок: не длиннее 120 символов'),
    body: z
      .string({ error: 'Текст документа должен быть строкой' })
      .trim()
      .min(1, 'Текст документа: введите текст')
      .max(100_000, 'Текст документа: не длиннее 100 000 символов'),
  }),
  { title: 'Заголовок', body: 'Текст (Markdown)' },
);
export type LegalDocBody = z.infer<typeof LegalDocBody>;

export const LegalDocVersion = z.object({
  kind: LegalDocKind,
  version: z.number(),
  title: z.string(),
  body: z.string(),
  published_at: z.number(),
  published_by: z.string().nullable(),
});
export type LegalDocVersion = z.infer<typeof LegalDocVersion>;

/** The owner's view of a document: the published versions (newest first) and a starter text naming the seller. */
export const AdminLegalDoc = z.object({
  kind: LegalDocKind,
  title: z.string(),
  versions: z.array(LegalDocVersion),
  template: z.object({ title: z.string(), body: z.string() }),
});
export type AdminLegalDoc = z.infer<typeof AdminLegalDoc>;

export const PublicLegalDoc = z.object({
  kind: LegalDocKind,
  version: z.number(),
  title: z.string(),
  html: z.string(),
  published_at: z.number(),
  path: z.string(),
});
export type PublicLegalDoc = z.infer<typeof PublicLegalDoc>;

/** GET /api/legal: what the footer, the offer page and the consent checkboxes show. */
export const PublicLegal = z.object({
  seller: z
    .object({
      legal_form: LegalForm,
      legal_form_text: z.string(),
      name: z.string(),
      inn: z.string(),
      ogrn: z.string(),
      email: z.string(),
      phone: z.string(),
      address: z.string(),
    })
    .nullable(),
  age_mark: AgeMark,
  documents: z.array(z.object({ kind: LegalDocKind, title: z.string(), version: z.number(), path: z.string() })),
  /** What registration asks for now (the documents published). */
  register_consents: z.array(ConsentKind),
});
export type PublicLegal = z.infer<typeof PublicLegal>;

export const ConsentRecord = z.object({
  id: z.number(),
  /** Null for a guest paying for a nickname (and for an erased account). */
  user_id: z.number().nullable(),
  username: z.string().nullable(),
  /** A guest's order and the nickname it was for. */
  guest_order_id: z.string().nullable(),
  guest_nickname: z.string().nullable(),
  kind: ConsentKind,
  version: z.number(),
  accepted_at: z.number(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  source: z.string(),
});
export type ConsentRecord = z.infer<typeof ConsentRecord>;
export const ConsentQuery = withLabels(
  z.strictObject({
    user_id: z.coerce
      .number({ error: 'Игрок: номер' })
      .int('Игрок: номер')
      .positive('Игрок: номер')
      .max(2_147_483_647, 'Игрок: номер')
      .optional(),
    kind: ConsentKind.optional(),
    before: z.coerce
      .number({ error: 'Курсор: число' })
      .int('Курсор: число')
      .positive('Курсор: число')
      .max(2_147_483_647, 'Курсор: слишком большое число')
      .optional(),
  }),
  { user_id: 'Игрок', kind: 'Согласие', before: 'Курсор' },
);
export const ConsentPage = z.object({ items: z.array(ConsentRecord), next: z.number().nullable() });

/** POST /api/legal/consents: what the player accepts before paying. */
export const ConsentBody = withLabels(z.strictObject({ consents: z.array(ConsentKind).min(1, 'Отметьте согласия').max(3) }), {
  consents: 'Согласия',
});
/** GET /api/legal/consents: what the signed-in player still has to accept before paying. */
export const ConsentsNeeded = z.object({ needed: z.array(ConsentKind) });
export type ConsentsNeeded = z.infer<typeof ConsentsNeeded>;

// ---- 54-ФЗ receipts ----

export const RECEIPT_KINDS = ['advance', 'settlement', 'refund', 'settle_refund'] as const;
export const ReceiptKind = z.enum(RECEIPT_KINDS, { error: 'Вид чека: advance, settlement, refund или settle_refund' });
export const RECEIPT_KIND_TEXT: Record<(typeof RECEIPT_KINDS)[number], string> = {
  advance: 'Аванс (пополнение)',
  settlement: 'Полный расчёт (зачёт аванса)',
  refund: 'Возврат',
  settle_refund: 'Возврат полного расчёта (деньги вернулись на баланс)',
};
export const RECEIPT_STATES = ['pending', 'sent', 'succeeded', 'canceled'] as const;
export const ReceiptState = z.enum(RECEIPT_STATES, { error: 'Состояние: pending, sent, succeeded или canceled' });
export const RECEIPT_STATE_TEXT: Record<(typeof RECEIPT_STATES)[number], string> = {
  pending: 'Ждёт отправки',
  sent: 'Отправлен',
  succeeded: 'Зарегистрирован',
  canceled: 'Не зарегистрирован',
};

export const AdminReceipt = z.object({
  id: z.number(),
  payment_id: z.string(),
  user_id: z.number(),
  username: z.string().nullable(),
  provider: z.string(),
  kind: ReceiptKind,
  kind_text: z.string(),
  state: ReceiptState,
  state_text: z.string(),
  /** The provider's reason for a canceled one, or the last error while it is retried. */
  reason: z.string().nullable(),
  /** Roubles. */
  amount: z.number(),
  lines: z.array(
    z.object({
      description: z.string(),
      amount: z.number(),
      vat_code: z.number().nullable(),
      payment_mode: z.string().nullable(),
      payment_subject: z.string().nullable(),
    }),
  ),
  email: z.string(),
  /** What it is for: the spending's ledger reference (order:…, privilege:…) or the refund. */
  ref: z.string().nullable(),
  idempotence_key: z.string(),
  provider_receipt_id: z.string().nullable(),
  attempts: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type AdminReceipt = z.infer<typeof AdminReceipt>;

export const AdminReceiptsQuery = withLabels(
  z.strictObject({
    state: ReceiptState.optional(),
    kind: ReceiptKind.optional(),
    payment_id: z
      .string()
      .trim()
      .regex(/^[0-9a-f-]{1,36}$/, 'Платёж: номер платежа (UUID)')
      .optional(),
    player: z
      .string()
      .trim()
      .max(16, 'Игрок: не длиннее 16 символов')
      .regex(/^[A-Za-z0-9_]*$/, 'Игрок: латинские буквы, цифры и «_»')
      .optional(),
    before: z.coerce
      .number({ error: 'Курсор: число' })
      .int('Курсор: число')
      .positive('Курсор: число')
      .max(2_147_483_647, 'Курсор: слишком большое число')
      .optional(),
  }),
  { state: 'Состояние', kind: 'Вид чека', payment_id: 'Платёж', player: 'Игрок', before: 'Курсор' },
);
export type AdminReceiptsQuery = z.infer<typeof AdminReceiptsQuery>;
export const AdminReceiptsPage = z.object({ items: z.array(AdminReceipt), next: z.number().nullable() });
export type AdminReceiptsPage = z.infer<typeof AdminReceiptsPage>;
