import { AZLINK_ONLINE_MS, USERNAME_RE, type HomeShowcase, type PlayerProfile, type PublicProfile } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { notFound } from '../../lib/errors.ts';
import { zonedDate, zonedMidnight } from '../../lib/zoned-days.ts';
import { banOf } from '../users/ban-status.ts';
import { capeTextures, currentTier, skinTextures, votesThisMonth, type HiddenPlayers } from '../users/users.ports.ts';
import * as repo from './players.repo.ts';
import { HomeSettingsDoc } from './players.settings.ts';

export const PLAYER_TEXTS = {
  notFound: 'Игрок не найден',
} as const;

const headUrl = (username: string) => `/api/user/${encodeURIComponent(username)}/head`;

/** The public profile /u/{name}: what anyone may see of a player, or only the name when they hid it. */
export async function publicProfile(db: Db, username: string, now = Date.now()): Promise<PlayerProfile> {
  // Only a possible player name is looked up (PostgreSQL refuses NUL bytes in text).
  if (!USERNAME_RE.test(username)) throw notFound(PLAYER_TEXTS.notFound, { code: 'player_not_found' });
  const user = await repo.publicProfileRow(db, username);
  if (!user) throw notFound(PLAYER_TEXTS.notFound, { code: 'player_not_found' });
  const base = { username: user.username, head_url: headUrl(user.username) };
  if (user.hidden === 1) {
    return {
      ...base,
      hidden: true,
      created_at: null,
      is_admin: false,
      tier: null,
      last_seen_at: null,
      in_game: null,
      votes_month: null,
      skin_url: null,
      slim: false,
      cape_url: null,
      ban: null,
    };
  }
  const [tier, votes, skin, cape, inGame] = await Promise.all([
    currentTier.ask()(db, user.id, now),
    votesThisMonth.ask()(db, user.id, now),
    skinTextures.ask().worn(db, user.id, now),
    capeTextures.ask().worn(db, user.id, now),
    serverPlayingOn(db, user.username, now),
  ]);
  return {
    ...base,
    hidden: false,
    created_at: Number(user.created_at),
    is_admin: user.is_admin === 1,
    tier,
    last_seen_at: inGame !== null ? now : user.last_seen_at == null ? null : Number(user.last_seen_at),
    in_game: inGame,
    votes_month: votes,
    skin_url: skin ? `/textures/${skin.hash}` : null,
    slim: skin?.slim ?? false,
    cape_url: cape ? `/textures/${cape.hash}` : null,
    ban: banOf(user, now),
  };
}

/**
 * The short profile GET /api/user/{username}/profile: name, UUID, role, date and ban in force —
 * or, like /u/{name}, only the name when the player hid their profile.
 */
export async function shortProfile(db: Db, username: string, now = Date.now()): Promise<PublicProfile> {
  if (!USERNAME_RE.test(username)) throw notFound(PLAYER_TEXTS.notFound, { code: 'player_not_found' });
  const user = await repo.shortProfileRow(db, username);
  if (!user) throw notFound(PLAYER_TEXTS.notFound, { code: 'player_not_found' });
  if (user.hidden === 1) return { username: user.username, hidden: true, uuid: null, is_admin: false, created_at: null, ban: null };
  return {
    username: user.username,
    hidden: false,
    uuid: user.uuid,
    is_admin: user.is_admin === 1,
    created_at: new Date(Number(user.created_at)).toISOString(),
    ban: banOf(user, now),
  };
}

/** The hiddenPlayers port: who of a public list hid their profile. */
export const hiddenPlayers: HiddenPlayers = {
  async ids(db, userIds) {
    const ids = [...new Set(userIds)];
    if (ids.length === 0) return new Set();
    return new Set(await repo.hiddenIds(db, ids));
  },
  async names(db, names) {
    // Only possible player names are looked up (PostgreSQL refuses NUL bytes in text).
    const lower = [...new Set(names.filter((n) => USERNAME_RE.test(n)).map((n) => n.toLowerCase()))];
    if (lower.length === 0) return new Set();
    return new Set(await repo.hiddenNames(db, lower));
  },
};

export async function privacyOf(db: Db, userId: number): Promise<{ hidden: boolean }> {
  const row = await repo.profileHidden(db, userId);
  return { hidden: row?.hidden === 1 };
}

export async function setPrivacy(db: Db, userId: number, hidden: boolean): Promise<{ hidden: boolean }> {
  await repo.saveHidden(db, userId, hidden);
  return { hidden };
}

/** Players seen online in game: their «last seen» moves to `at` (never back). */
/** The server whose AzLink plugin names the player online now (within two minutes), or null. */
async function serverPlayingOn(db: Db, username: string, now: number): Promise<string | null> {
  const name = username.toLowerCase();
  for (const s of await repo.pluginPlayerLists(db, now - AZLINK_ONLINE_MS)) {
    try {
      const names: unknown = JSON.parse(s.link_players ?? '[]');
      if (Array.isArray(names) && names.some((n) => typeof n === 'string' && n.toLowerCase() === name)) return s.name;
    } catch {
      // A list that does not parse names nobody.
    }
  }
  return null;
}

export async function recordSeen(db: Db, names: string[], at: number): Promise<void> {
  const byLower = new Map(names.filter((n) => USERNAME_RE.test(n)).map((n) => [n.toLowerCase(), n]));
  if (byLower.size === 0) return;
  await repo.markSeenByNames(db, [...byLower.keys()], at);
  await repo.markNamesSeen(
    db,
    [...byLower].map(([name_lower, name]) => ({ name_lower, name })),
    at,
  );
}

const RECENT = 8;
const TOP = 5;

/** The first millisecond of the month `now` falls in, in the site's time zone. */
export function monthStart(now: number, timeZone: string): number {
  const [y, m] = zonedDate(now, timeZone).split('-').map(Number) as [number, number];
  return zonedMidnight(y, m, 1, timeZone);
}

/**
 * The home page's widgets: the latest purchases (what and by whom, unless the buyer hid their
 * name; never amounts) and this month's biggest top-ups by place (names only).
 */
export async function showcase(ctx: Pick<AppContext, 'db' | 'settings' | 'config'>, now = Date.now()): Promise<HomeShowcase> {
  const settings = await ctx.settings.get(HomeSettingsDoc);
  const [recent, top] = await Promise.all([
    settings.recent_purchases ? repo.recentPurchases(ctx.db, RECENT) : null,
    settings.top_donors ? repo.topDonors(ctx.db, monthStart(now, ctx.config.timeZone), TOP) : null,
  ]);
  const shown = (r: { username: string; deleted_at: number | null; hidden: number | null }) =>
    r.deleted_at != null || r.hidden === 1 ? null : r.username;
  return {
    recent_purchases:
      recent?.map((r) => ({ player: shown(r), item: (r.note ?? '').replace(/ \(.*\)$/, ''), at: Number(r.created_at) })) ?? null,
    top_donors: top?.map((r, i) => ({ place: i + 1, player: shown(r) })) ?? null,
  };
}
