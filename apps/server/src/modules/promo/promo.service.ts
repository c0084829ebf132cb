import type { PromoCodeAdmin, PromoCodeBodyParsed, PromoKind, PromoScope } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { toKopecks, toRoubles } from '../../lib/money.ts';
import { ownerOnly } from '../../lib/owner-only.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { promoKey, type PromoRow } from '../purchases/purchases.promo.ts';
import { findPromoById, insertPromo, listPromoRows, promoStats, updatePromoRow } from './promo.repo.ts';

// Админ-панель → Промокоды: the codes themselves; applying them is the purchases core's (purchases.promo.ts).

export const PROMO_ADMIN_TEXTS = {
  notFound: 'Промокод не найден',
  exists: (code: string) => `Промокод «${code}» уже есть (регистр букв не различается)`,
  created: 'Промокод добавлен',
  updated: 'Промокод изменён',
  disabled: 'Промокод выключен',
  enabled: 'Промокод включён',
  topupOwnerOnly: 'Промокоды на бонус к пополнению создаёт, меняет и включает только владелец сайта',
} as const;

/** Who edits the codes: the owner, or staff with `promo`. */
export interface PromoEditor {
  id: number;
  owner: boolean;
}

/**
 * A top-up bonus code credits balance nobody paid for (up to 100 % of every top-up made with it):
 * it is the owner's to create, change and switch on. Discount codes lower a price, bounded by it,
 * and pay out nothing: they stay with staff, who may also switch any code off.
 */
function assertMayEditKind(editor: PromoEditor, ...kinds: string[]): void {
  if (!editor.owner && kinds.includes('topup_bonus')) throw ownerOnly(PROMO_ADMIN_TEXTS.topupOwnerOnly, 'kind');
}

function toAdmin(row: PromoRow, stats: { revenue: number; discount: number } | undefined): PromoCodeAdmin {
  return {
    id: row.id,
    code: row.code,
    kind: row.kind as PromoKind,
    value: row.kind === 'fixed' ? toRoubles(Number(row.value)) : Number(row.value),
    applies_to: row.applies_to as PromoScope,
    item_ids: row.item_ids ? (JSON.parse(row.item_ids) as number[]) : null,
    category: row.category,
    max_uses: row.max_uses === null ? null : Number(row.max_uses),
    per_player: Number(row.per_player),
    min_total: row.min_total === null ? null : toRoubles(Number(row.min_total)),
    starts_at: row.starts_at === null ? null : Number(row.starts_at),
    ends_at: row.ends_at === null ? null : Number(row.ends_at),
    disabled: row.disabled_at !== null,
    uses: Number(row.uses),
    revenue: toRoubles(stats?.revenue ?? 0),
    discount_total: toRoubles(stats?.discount ?? 0),
    created_at: Number(row.created_at),
  };
}

export async function listPromos(db: Db): Promise<PromoCodeAdmin[]> {
  const [rows, stats] = await Promise.all([listPromoRows(db), promoStats(db)]);
  return rows.map((r) => toAdmin(r, stats.get(r.id)));
}

async function one(db: Db, id: number): Promise<PromoCodeAdmin> {
  const row = await findPromoById(db, id);
  if (!row) throw notFound(PROMO_ADMIN_TEXTS.notFound);
  return toAdmin(row, (await promoStats(db, [id])).get(id));
}

function columns(body: PromoCodeBodyParsed) {
  return {
    code: body.code,
    code_key: promoKey(body.code),
    kind: body.kind,
    value: body.kind === 'fixed' ? toKopecks(body.value) : body.value,
    applies_to: body.applies_to,
    item_ids: body.item_ids && body.item_ids.length > 0 ? JSON.stringify(body.item_ids) : null,
    category: body.category ?? null,
    max_uses: body.max_uses,
    per_player: body.per_player,
    min_total: body.min_total == null ? null : toKopecks(body.min_total),
    starts_at: body.starts_at ?? null,
    ends_at: body.ends_at ?? null,
  };
}

export async function createPromo(db: Db, editor: PromoEditor, body: PromoCodeBodyParsed): Promise<PromoCodeAdmin> {
  assertMayEditKind(editor, body.kind);
  const now = Date.now();
  try {
    const id = await db.transaction().execute(async (trx) => {
      const row = await insertPromo(trx, { ...columns(body), disabled_at: null, created_at: now, updated_at: now });
      await recordAudit(trx, { actorId: editor.id, action: 'promo.create', entity: 'promo_code', entityId: row.id, after: row });
      return row.id;
    });
    return one(db, id);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(PROMO_ADMIN_TEXTS.exists(body.code), { code: 'promo_code_exists', field: 'code' });
    throw err;
  }
}

/** Edits a code (its uses stay); a max_uses below the uses taken is refused by the table's CHECK as a 409. */
export async function updatePromo(db: Db, editor: PromoEditor, id: number, body: PromoCodeBodyParsed): Promise<PromoCodeAdmin> {
  try {
    await db.transaction().execute(async (trx) => {
      const before = await findPromoById(trx, id);
      if (!before) throw notFound(PROMO_ADMIN_TEXTS.notFound);
      assertMayEditKind(editor, before.kind, body.kind);
      if (body.max_uses !== null && body.max_uses < Number(before.uses))
        throw conflict(`Код уже использован ${Number(before.uses)} раз: «Всего использований» не может быть меньше`, {
          code: 'invalid',
          field: 'max_uses',
        });
      const after = await updatePromoRow(trx, id, { ...columns(body), updated_at: Date.now() });
      await recordAudit(trx, { actorId: editor.id, action: 'promo.update', entity: 'promo_code', entityId: id, before, after });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(PROMO_ADMIN_TEXTS.exists(body.code), { code: 'promo_code_exists', field: 'code' });
    throw err;
  }
  return one(db, id);
}

export async function setDisabled(db: Db, editor: PromoEditor, id: number, disabled: boolean): Promise<PromoCodeAdmin> {
  await db.transaction().execute(async (trx) => {
    const before = await findPromoById(trx, id);
    if (!before) throw notFound(PROMO_ADMIN_TEXTS.notFound);
    if (!disabled && before.kind === 'topup_bonus' && !editor.owner) throw ownerOnly(PROMO_ADMIN_TEXTS.topupOwnerOnly, 'disabled');
    await updatePromoRow(trx, id, { disabled_at: disabled ? (before.disabled_at ?? Date.now()) : null, updated_at: Date.now() });
    await recordAudit(trx, {
      actorId: editor.id,
      action: disabled ? 'promo.disable' : 'promo.enable',
      entity: 'promo_code',
      entityId: id,
      before: { disabled: before.disabled_at !== null },
      after: { disabled },
    });
  });
  return one(db, id);
}
