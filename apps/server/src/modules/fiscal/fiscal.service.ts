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
      entity: kind,
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
