import { z } from 'zod';
import { BanInfo } from './bans.ts';
import { withLabels } from './common.ts';

// Players on show: the public profile /u/{name}, the player's privacy, the home page's widgets.

export const PlayerNameParams = withLabels(
  z.strictObject({ name: z.string({ error: 'Введите имя игрока' }).min(1, 'Введите имя игрока').max(64, 'Игрок не найден') }),
  { name: 'Имя игрока' },
);

export const PlayerProfile = z.object({
  username: z.string(),
  /** The player chose to hide their profile: only the name and the head are shown. */
  hidden: z.boolean(),
  head_url: z.string(),
  /** Null below when hidden. Epoch ms. */
  created_at: z.number().nullable(),
  is_admin: z.boolean(),
  /** The tier the player holds now. */
  tier: z.object({ title: z.string(), expires_at: z.number() }).nullable(),
  /** When the player was last seen in game (a server's status sample, a login to an online-mode server); null: not known. */
  last_seen_at: z.number().nullable(),
  /** The server the player is on now, as its AzLink plugin reported in the last two minutes; null: not known to be in the game. */
  in_game: z.string().nullable().optional(),
  /** Votes on server tops this month; null on a site without votes. */
  votes_month: z.number().nullable(),
  /** The skin to draw in 3D; null: the default skin. */
  skin_url: z.string().nullable(),
  slim: z.boolean(),
  cape_url: z.string().nullable(),
  ban: BanInfo.nullable(),
});
export type PlayerProfile = z.infer<typeof PlayerProfile>;

/**
 * The short public profile (GET /api/user/{username}/profile). A player who hid their profile
 * shows only the name here too: `hidden` true, the UUID and the date null, no role, no ban.
 */
export const PublicProfile = z.object({
  username: z.string(),
  hidden: z.boolean(),
  /** The game profile's UUID; null when hidden. */
  uuid: z.string().nullable(),
  is_admin: z.boolean(),
  /** ISO 8601; null when hidden. */
  created_at: z.string().nullable(),
  ban: BanInfo.nullable(),
});
export type PublicProfile = z.infer<typeof PublicProfile>;

export const ProfileParams = withLabels(
  z.strictObject({ username: z.string({ error: 'Введите имя игрока' }).min(1, 'Введите имя игрока').max(64, 'Игрок не найден') }),
  { username: 'Имя игрока' },
);

export const PlayerPrivacy = withLabels(
  z.strictObject({
    /** Hide the public profile and show «Игрок скрыл имя» instead of the name on every public list. */
    hidden: z.boolean({ error: 'Скрытие профиля: да или нет' }),
  }),
  { hidden: 'Скрыть профиль' },
);
export type PlayerPrivacy = z.infer<typeof PlayerPrivacy>;

/** Which of the home page's widgets the owner shows (Админ-панель → Настройки). */
export const HomeSettings = withLabels(
  z.strictObject({
    recent_purchases: z.boolean({ error: 'Последние покупки: да или нет' }),
    top_donors: z.boolean({ error: 'Топ месяца: да или нет' }),
  }),
  { recent_purchases: 'Последние покупки на главной', top_donors: 'Топ месяца на главной' },
);
export type HomeSettings = z.infer<typeof HomeSettings>;
export const HomeSettingsPatch = HomeSettings.partial();

export const HomeShowcase = z.object({
  /** Newest first; null when the owner turned the widget off. `player` null: the buyer hid their name. */
  recent_purchases: z.array(z.object({ player: z.string().nullable(), item: z.string(), at: z.number() })).nullable(),
  /** This month's biggest top-ups in the site's time zone, by place; null when turned off. */
  top_donors: z.array(z.object({ place: z.number(), player: z.string().nullable() })).nullable(),
});
export type HomeShowcase = z.infer<typeof HomeShowcase>;
