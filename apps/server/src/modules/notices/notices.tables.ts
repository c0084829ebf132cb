import type { Generated } from 'kysely';

/** One notice to one player (the bell). A notice to everyone is one row per account. */
export interface NoticesTable {
  id: Generated<number>;
  user_id: number;
  /** NoticeKind of the contract ('topup', 'delivery_failed', 'message', …). */
  kind: string;
  title: string;
  body: string | null;
  /** A site path the notice leads to ('/profile?tab=history'), or null. */
  link: string | null;
  /** JSON of small facts the web may show (amounts in kopecks, a product name), or null. */
  data_json: string | null;
  created_at: number;
  /** When the player marked it read; null while unread. */
  read_at: number | null;
}

export interface NoticesTables {
  notices: NoticesTable;
}
