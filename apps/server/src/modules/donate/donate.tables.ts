import type { Generated } from 'kysely';

/** Tables of the donate feature; db/types.ts merges them into the Database type. */
export interface DonateTiersTable {
  id: Generated<number>;
  title: string;
  /** Plain text; the web app shows it with its line breaks, never as HTML. */
  content: string;
  /** Price per month in hundredths of the currency (kopecks for roubles). */
  amount_minor: number;
  currency: string;
  image_url: string | null;
  is_best: number;
  /** The admin's order of tiers, smallest first (ties by id). */
  position: number;
  /**
   * The tier's kits and features, as JSON arrays in the admin's order. They have no identity
   * of their own, are only ever read with their tier and are replaced with it as a whole, so
   * the public list is one query over one table.
   */
  kits_json: string;
  features_json: string;
  /** JSON arrays (privileges): game servers (empty: every server with RCON), console commands run when the tier starts or is extended and when it ends. */
  server_ids: Generated<string>;
  grant_commands: Generated<string>;
  revoke_commands: Generated<string>;
  /** JSON array of {months, discount}: the periods it is sold for. */
  periods_json: Generated<string>;
  /** Kopecks per month while the sale runs (until sale_ends_at; null end: until removed). */
  sale_amount_minor: number | null;
  sale_ends_at: number | null;
  /** 1: offered by subscription, charged every subscription_months months from a saved card. */
  subscription: Generated<number>;
  subscription_months: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface DonateTables {
  donate_tiers: DonateTiersTable;
}
