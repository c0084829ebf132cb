import type { Generated } from 'kysely';

/** Tables of announcements; db/types.ts merges them. */
export interface AnnounceTables {
  announce_outbox: AnnounceOutboxTable;
}

/**
 * One message to one channel (discord | telegram | vk), written in the transaction of the event
 * it tells of and sent by the `announce.outbox` job: once (a unique key per event and channel),
 * in order per channel, retried with the provider's own waits.
 */
export interface AnnounceOutboxTable {
  id: Generated<number>;
  channel: string;
  /** news | purchase | ticket | server_down | server_up | test */
  event: string;
  /** `<event>:<what>` (news:12, server_down:3:<time>): the same event is queued once per channel. */
  dedupe_key: string;
  /** The filled template, as plain text. */
  text: string;
  /** queued | sent | failed */
  state: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
  lock_token: string | null;
  locked_until: number | null;
}
