import { HISTORY_PAGE_SIZE, ledgerKindText, PURCHASE_REF_TEXT, type UserHistoryQuery, type UserHistoryResponse } from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { toRoubles } from '../../lib/money.ts';
import { deliveriesById, statusOf } from '../deliveries/deliveries.service.ts';
import { ledgerRefs, type LedgerRefDetail } from '../users/users.ports.ts';
import * as repo from './history.repo.ts';

/** `order:12` → ['order', 12]; a reference of another shape (or none) names nothing to look up. */
function parseRef(ref: string | null): [string, number] | null {
  const m = ref === null ? null : /^([a-z_]+):(\d{1,15})(?::.*)?$/.exec(ref);
  return m ? [m[1]!, Number(m[2])] : null;
}

/** What each reference names, asking the feature that answers its prefix (users.ports.ts ledgerRefs). */
async function details(db: Db, refs: (string | null)[]): Promise<Map<string, LedgerRefDetail>> {
  const byPrefix = new Map<string, Set<number>>();
  for (const parsed of refs.map(parseRef)) {
    if (!parsed) continue;
    const ids = byPrefix.get(parsed[0]) ?? new Set<number>();
    ids.add(parsed[1]);
    byPrefix.set(parsed[0], ids);
  }
  const out = new Map<string, LedgerRefDetail>();
  for (const [prefix, idSet] of byPrefix) {
    const ids = [...idSet];
    let found: Map<number, LedgerRefDetail>;
    if (prefix === 'delivery') {
      // A shop refund returns the money of one delivery.
      const rows = await deliveriesById(db, ids);
      found = new Map([...rows].map(([id, d]) => [id, { title: d.label, label: null, deliveries: [d] }]));
    } else {
      const resolve = ledgerRefs.resolver(prefix);
      if (!resolve) continue;
      found = await resolve(db, ids);
    }
    for (const [id, detail] of found) out.set(`${prefix}:${id}`, detail);
  }
  return out;
}

/**
 * GET /api/user/history: the player's ledger — every balance movement, once — newest first, a
 * page at a time, optionally of one kind, each with what it bought and its deliveries' states.
 */
export async function history(db: Db, userId: number, query: UserHistoryQuery): Promise<UserHistoryResponse> {
  const page = query.page ?? 1;
  const total = await repo.countLedgerRows(db, userId, query.kind);
  const rows = await repo.ledgerPage(db, userId, query.kind, (page - 1) * HISTORY_PAGE_SIZE, HISTORY_PAGE_SIZE);
  const kinds = await repo.ledgerKinds(db, userId);
  const found = await details(
    db,
    rows.map((r) => r.ref),
  );
  return {
    page,
    pages: Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE)),
    total,
    kinds: kinds.map((k) => ({ kind: k.reason, label: ledgerKindText(k.reason) })),
    entries: rows.map((r) => {
      const amount = Number(r.amount);
      const detail = r.ref === null ? undefined : found.get(r.ref.split(':').slice(0, 2).join(':'));
      const prefix = parseRef(r.ref)?.[0];
      const label =
        detail?.label ??
        (r.reason === 'purchase' && prefix && PURCHASE_REF_TEXT[prefix] ? PURCHASE_REF_TEXT[prefix] : ledgerKindText(r.reason, amount));
      // An administrator's change names them; a player's own purchase does not.
      const byOther = r.author_id !== null && r.author_id !== userId;
      const deliveries = detail?.deliveries ?? [];
      return {
        id: r.id,
        kind: r.reason,
        label,
        amount: toRoubles(amount),
        created_at: Number(r.created_at),
        note: r.note,
        title: detail?.title ?? null,
        author: byOther ? (r.author_name ?? 'Администратор') : null,
        deliveries,
        delivery: statusOf(deliveries),
      };
    }),
  };
}
