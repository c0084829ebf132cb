import type { Generated } from 'kysely';

/** Tables of the seller's legal side (fiscal details per item, legal documents, consents); db/types.ts merges them. */
export interface LegalTables {
  fiscal_items: FiscalItemsTable;
  legal_documents: LegalDocumentsTable;
  legal_consents: LegalConsentsTable;
}

/** The owner's VAT rate and payment subject for one shop item or donate tier (null: the default applies). */
export interface FiscalItemsTable {
  /** 'shop_item' | 'tier' */
  kind: string;
  item_id: number;
  vat_code: number | null;
  payment_subject: string | null;
  updated_at: number;
}

/** Every published version of a legal document (оферта, политика ПД, правила возврата): none is ever changed or deleted. */
export interface LegalDocumentsTable {
  /** 'offer' | 'privacy' | 'refund' */
  kind: string;
  /** 1, 2, …: the newest one applies. */
  version: number;
  title: string;
  /** Markdown as the owner wrote it. */
  body: string;
  published_at: number;
  published_by: number | null;
}

/** One acceptance: of a document's version, or of the adult-or-parental-consent confirmation ('age', version 1). */
export interface LegalConsentsTable {
  id: Generated<number>;
  /** Null once the account is erased (the record of the act stays). */
  user_id: number | null;
  /** 'offer' | 'privacy' | 'age' */
  kind: string;
  version: number;
  accepted_at: number;
  ip: string | null;
  user_agent: string | null;
  /** Where it was given: 'register', 'social', 'payment', 'guest' (a payment without an account). */
  source: string;
  /** A guest's order and the nickname it was for (user_id is null then). */
  guest_order_id: string | null;
  guest_nickname: string | null;
}
