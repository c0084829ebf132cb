import {
  LEGAL_DOC_TEXT,
  LEGAL_DOCS,
  LEGAL_FORM_TEXT,
  type AdminFiscal,
  type AdminLegalDoc,
  type ConsentKind,
  type FiscalItem,
  type FiscalItemBody,
  type FiscalSettings,
  type FiscalSettingsBody,
  type LegalDocBody,
  type LegalDocKind,
  type PaymentSubject,
  type PublicLegal,
  type PublicLegalDoc,
} from '@kubik/contract';
import type * as Markdown from '@kubik/contract/markdown';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import * as fiscalRepo from './fiscal.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { DEFAULT_PAYMENT_SUBJECT, FiscalSettingsDoc, fiscalMissing, fiscalSettings } from '../site/fiscal.settings.ts';
import * as repo from '../site/legal.repo.ts';
import { legalTemplate, publishedVersions, recordConsents, registerConsentsNeeded } from '../site/legal.service.ts';
import { SiteSettingsDoc, siteName } from '../site/site.settings.ts';

// markdown-it loads with the first document rendered, not when the site starts.
let markdown: Promise<typeof Markdown> | undefined;

export const legalPath = (kind: LegalDocKind) => `/legal/${kind}`;

export async function adminFiscal(ctx: AppContext): Promise<AdminFiscal> {
  const value = await fiscalSettings(ctx);
  return { value, missing: fiscalMissing(value) };
}

/**
 * Saves the fields sent over the stored ones (the whole is checked again: the form and the numbers
 * must agree), and puts the seller's name, ИНН and ОГРН into the site settings the footer shows.
 */
export async function saveFiscal(ctx: AppContext, body: FiscalSettingsBody, actorId: number): Promise<AdminFiscal> {
  const saved = await ctx.settings.set(FiscalSettingsDoc, body as Partial<FiscalSettings>, { actorId });
  await ctx.settings.set(SiteSettingsDoc, { legal_seller: saved.name, legal_inn: saved.inn, legal_ogrn: saved.ogrn }, { actorId });
  return { value: saved, missing: fiscalMissing(saved) };
}

export async function fiscalItems(ctx: AppContext): Promise<FiscalItem[]> {
  const [f, rows, sellables] = await Promise.all([fiscalSettings(ctx), repo.fiscalItemRows(ctx.db), repo.sellables(ctx.db)]);
  return sellables.map((s) => {
    const r = rows.find((x) => x.kind === s.kind && x.item_id === s.id);
    const subject = (r?.payment_subject ?? null) as PaymentSubject | null;
    return {
      kind: s.kind,
      id: s.id,
      title: s.title,
      vat_code: r?.vat_code ?? null,
      payment_subject: subject,
      effective_vat_code: r?.vat_code ?? f.vat_code,
      effective_payment_subject: subject ?? DEFAULT_PAYMENT_SUBJECT,
    };
  });
}

export async function saveFiscalItem(ctx: AppContext, kind: 'shop_item' | 'tier', id: number, body: FiscalItemBody, actorId: number) {
  if (!(await repo.sellableExists(ctx.db, kind, id)))
    throw notFound(kind === 'tier' ? 'Нет такой привилегии' : 'Нет такого товара', { code: 'fiscal_item_not_found' });
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.fiscalItemRow(trx, kind, id);
    await repo.saveFiscalItem(trx, { kind, item_id: id, vat_code: body.vat_code, payment_subject: body.payment_subject });
    await recordAudit(trx, {
      actorId,
      action: 'fiscal.item',
      entity: kind === 'tier' ? 'donate' : 'shop_item',
      entityId: id,
      before: before ? { vat_code: before.vat_code, payment_subject: before.payment_subject } : null,
      after: body,
    });
  });
  return (await fiscalItems(ctx)).find((i) => i.kind === kind && i.id === id)!;
}

export async function adminLegalDoc(ctx: AppContext, kind: LegalDocKind): Promise<AdminLegalDoc> {
  const versions = await repo.documentVersions(ctx.db, kind);
  return {
    kind,
    title: LEGAL_DOC_TEXT[kind],
    versions: versions.map((v) => ({ ...v, kind, version: Number(v.version), published_at: Number(v.published_at) })),
    template: legalTemplate(kind, await fiscalSettings(ctx), { name: await siteName(ctx), url: ctx.config.publicUrl }),
  };
}

/** Publishes a new version (the earlier ones stay as they were): players accept it from now on. */
export async function publishLegalDoc(ctx: AppContext, kind: LegalDocKind, body: LegalDocBody, actorId: number) {
  await ctx.db.transaction().execute(async (trx) => {
    const version = (await repo.lastVersion(trx, kind)) + 1;
    await repo.insertDocument(trx, { kind, version, title: body.title, body: body.body, published_at: Date.now(), published_by: actorId });
    await recordAudit(trx, { actorId, action: 'legal.publish', entity: 'legal', entityId: kind, after: { title: body.title, version } });
  });
  return adminLegalDoc(ctx, kind);
}

export async function publicLegal(ctx: AppContext): Promise<PublicLegal> {
  const [f, docs] = await Promise.all([fiscalSettings(ctx), repo.latestDocuments(ctx.db)]);
  return {
    seller: f.name
      ? {
          legal_form: f.legal_form,
          legal_form_text: LEGAL_FORM_TEXT[f.legal_form],
          name: f.name,
          inn: f.inn,
          ogrn: f.ogrn,
          email: f.email,
          phone: f.phone,
          address: f.address,
        }
      : null,
    age_mark: f.age_mark,
    documents: LEGAL_DOCS.flatMap((kind) => {
      const d = docs.find((x) => x.kind === kind);
      return d ? [{ kind, title: d.title, version: Number(d.version), path: legalPath(kind) }] : [];
    }),
    register_consents: await registerConsentsNeeded(ctx.db),
  };
}

export async function publicLegalDoc(ctx: AppContext, kind: LegalDocKind): Promise<PublicLegalDoc> {
  const v = (await publishedVersions(ctx.db))[kind];
  const d = v === undefined ? undefined : (await repo.documentVersions(ctx.db, kind)).find((x) => Number(x.version) === v);
  if (!d) throw notFound('Документ ещё не опубликован');
  const { renderMarkdown } = await (markdown ??= import('@kubik/contract/markdown'));
  return {
    kind,
    version: Number(d.version),
    title: d.title,
    html: renderMarkdown(d.body),
    published_at: Number(d.published_at),
    path: legalPath(kind),
  };
}

/** Records the player's ticks before paying, in one transaction. */
export async function givePaymentConsents(
  ctx: AppContext,
  userId: number,
  consents: ConsentKind[],
  meta: { ip: string; userAgent: string | null },
) {
  await ctx.db.transaction().execute((trx) => recordConsents(trx, userId, consents, { ...meta, source: 'payment' }));
}

/** Moscow time has no daylight saving: a month there starts 3 hours before UTC's. */
const MSK_MS = 3 * 3_600_000;
/** Providers that send no receipt through their API: a самозанятый registers these incomes in «Мой налог» himself. */
export const SELF_REGISTERED = ['yoomoney', 'freekassa'] as const;

export interface MonthIncome {
  month: string;
  count: number;
  /** Roubles received, refunded, and what stays as income. */
  received: number;
  refunded: number;
  income: number;
  by_provider: Record<string, number>;
}

/** Incomes per month (Moscow time) of the year through ЮMoney and FreeKassa. */
export async function monthlyIncomes(ctx: AppContext, year: number): Promise<MonthIncome[]> {
  const from = Date.UTC(year, 0, 1) - MSK_MS;
  const to = Date.UTC(year + 1, 0, 1) - MSK_MS;
  const rows = await fiscalRepo.incomePayments(ctx.db, [...SELF_REGISTERED], from, to);
  const months = Array.from({ length: 12 }, (_, i) => ({
    month: `${year}-${String(i + 1).padStart(2, '0')}`,
    count: 0,
    received: 0,
    refunded: 0,
    income: 0,
    by_provider: {} as Record<string, number>,
  }));
  for (const r of rows) {
    const m = months[new Date(Number(r.paid_at) + MSK_MS).getUTCMonth()]!;
    m.count += 1;
    m.received += Number(r.amount);
    m.refunded += Number(r.refunded_amount);
    m.by_provider[r.provider] = (m.by_provider[r.provider] ?? 0) + Number(r.amount) - Number(r.refunded_amount);
  }
  return months.map((m) => ({
    ...m,
    received: toRoubles(m.received),
    refunded: toRoubles(m.refunded),
    income: toRoubles(m.received - m.refunded),
    by_provider: Object.fromEntries(Object.entries(m.by_provider).map(([k, v]) => [k, toRoubles(v)])),
  }));
}

const rub = (v: number) => v.toFixed(2).replace('.', ',');

/** The same as CSV for Excel: UTF-8 with BOM, «;», roubles with a decimal comma. */
export function incomesCsv(months: MonthIncome[]): string {
  const head = ['Месяц', 'Платежей', 'Получено, ₽', 'Возвращено, ₽', 'Доход, ₽', 'ЮMoney, ₽', 'FreeKassa, ₽'];
  const lines = months.map((m) =>
    [
      m.month,
      String(m.count),
      rub(m.received),
      rub(m.refunded),
      rub(m.income),
      rub(m.by_provider.yoomoney ?? 0),
      rub(m.by_provider.freekassa ?? 0),
    ].join(';'),
  );
  return `\uFEFF${[head.join(';'), ...lines].join('\r\n')}\r\n`;
}
