import type { Generated } from 'kysely';

/** Tables of the support feature (tickets, ban appeals); db/types.ts merges them into the Database type. */
export interface SupportTables {
  support_categories: SupportCategoriesTable;
  support_tickets: SupportTicketsTable;
  support_messages: SupportMessagesTable;
  support_attachments: SupportAttachmentsTable;
  support_canned: SupportCannedTable;
}

/** A category the owner defines (Админ-панель → Обращения → Категории). */
export interface SupportCategoriesTable {
  id: Generated<number>;
  name: string;
  description: string;
  /** An emoji or a /media/… picture; null: none. */
  icon: string | null;
  /** JSON array of the custom fields (contract SupportField: key, label, type, required, options). */
  fields_json: string;
  position: number;
  /** 0: not offered for new tickets. */
  enabled: number;
  created_at: number;
  updated_at: number;
  /** Deleted by the owner: gone from every list; its tickets keep its name through the join. */
  deleted_at: number | null;
}

/** One ticket: a player's question, or a banned player's appeal of the ban in force. */
export interface SupportTicketsTable {
  id: Generated<number>;
  /** The player who wrote it (also for an appeal). */
  user_id: number;
  /** question | appeal */
  kind: string;
  /** null for an appeal. */
  category_id: number | null;
  subject: string;
  /** open | waiting | closed; moved only by conditional updates. */
  state: string;
  /** The staff member who looks after it (holds `support`); null: nobody yet. */
  assignee_id: number | null;
  /** JSON array of [{ label, value }]: the answers to the category's fields as they were asked. */
  fields_json: string;
  /** What the ticket is about: order | delivery | payment, with its id and a label written when it was made. */
  link_kind: string | null;
  link_id: string | null;
  link_label: string | null;
  /** The ban an appeal is about (bans.id); one appeal per ban. */
  ban_id: number | null;
  /** player | staff: who wrote the last message the player sees. */
  last_author: string;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  /** When the player, and the assignee, were last sent a letter about it: one letter per ten minutes each. */
  player_mailed_at: number | null;
  staff_mailed_at: number | null;
}

export interface SupportMessagesTable {
  id: Generated<number>;
  ticket_id: number;
  author_id: number;
  /** 1: written by staff (in the admin area). */
  staff: number;
  /** 1: a note only staff see. */
  internal: number;
  text: string;
  created_at: number;
}

/**
 * A picture attached to a message: uploaded first (message_id null, its uploader's alone for a
 * day), then sent with a message. Re-encoded, kept in the database and served only to the
 * ticket's author (not a note's) and to staff.
 */
export interface SupportAttachmentsTable {
  id: Generated<number>;
  uploader_id: number;
  ticket_id: number | null;
  message_id: number | null;
  /** The name it had on the uploader's computer (shown, never used as a path). */
  name: string;
  /** png | jpeg | webp */
  type: string;
  bytes: Buffer;
  size: number;
  width: number;
  height: number;
  created_at: number;
}

/** A canned answer staff insert into a reply. */
export interface SupportCannedTable {
  id: Generated<number>;
  title: string;
  text: string;
  created_at: number;
  updated_at: number;
}
