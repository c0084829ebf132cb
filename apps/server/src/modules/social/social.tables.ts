/** Tables of social login (docs/social.md); db/types.ts merges them. */
import type { Generated } from 'kysely';

/** A provider account linked to a player: one player per provider account, one account per provider per player. */
export interface SocialLinksTable {
  id: Generated<number>;
  user_id: number;
  /** 'vk' | 'telegram' | 'discord'. */
  provider: string;
  /** The provider's id of the account, as text (VK user_id, Telegram id, Discord snowflake). */
  provider_user_id: string;
  /** How the provider names the account («Иван Петров», «@ivan»), as of linking. */
  display_name: string;
  created_at: number;
}

/**
 * A redirect login (VK ID, Discord) between its start and the provider's callback: the state
 * sent to the provider (stored hashed), the browser that started it (the hash of its cookie)
 * and the PKCE verifier. Used once; any instance can finish it.
 */
export interface SocialFlowsTable {
  state_hash: string;
  browser_hash: string;
  provider: string;
  /** 'login' or 'link' (then user_id is the player who asked). */
  mode: string;
  user_id: number | null;
  code_verifier: string;
  expires_at: number;
}

/**
 * A provider account proven by its provider, waiting in one browser (the hash of its cookie) for
 * what the login still needs: the second factor (`two_factor`, user_id set) or a name and an
 * e-mail (`register`; then, after the form, the confirmation letter's token).
 */
export interface SocialTicketsTable {
  ticket_hash: string;
  kind: string;
  provider: string;
  provider_user_id: string;
  display_name: string;
  user_id: number | null;
  attempts: number;
  /** Registration: the name and address typed, and the hash of the letter's token. */
  username: string | null;
  email: string | null;
  confirm_hash: string | null;
  expires_at: number;
  /** Registration: the consents ticked at the registration step (JSON {kinds, ip, user_agent, at}), stored when the account is made. */
  consents?: string | null;
}

export interface SocialTables {
  social_links: SocialLinksTable;
  social_flows: SocialFlowsTable;
  social_tickets: SocialTicketsTable;
}
