import { z } from 'zod';
import { withLabels } from './common.ts';

// Logging into the game with a site account: what /help «Вход в игру» shows, and the owner's
// settings for it (Админ-панель → Вход в игру).

export const GAME_LOGIN_HELP_MAX = 5000;

export const GameLoginSettingsBody = withLabels(
  z.strictObject({
    server_name: z.string({ error: 'Введите название' }).trim().min(1, 'Введите название').max(64, 'Название: не длиннее 64 символов'),
    help_text: z
      .string({ error: 'Текст должен быть строкой' })
      .trim()
      .max(GAME_LOGIN_HELP_MAX, `Текст: не длиннее ${GAME_LOGIN_HELP_MAX} символов`),
  }),
  { server_name: 'Название в лаунчере', help_text: 'Текст на странице помощи' },
);
export type GameLoginSettingsBody = z.infer<typeof GameLoginSettingsBody>;

export const GameLoginInfo = z.object({
  /** The name launchers show for the site's login server (Yggdrasil metadata serverName). */
  server_name: z.string(),
  /** The owner's words above the instructions; may be empty. Plain text. */
  help_text: z.string(),
  /** The Yggdrasil API root for authlib-injector launchers and game servers. */
  yggdrasil_url: z.string(),
  /** The site's address, as LaunchServer configs name it. */
  site_url: z.string(),
  /** Whether GravitLauncher's LaunchServer may use the site (GRAVIT_SECRET is set). */
  gravit_enabled: z.boolean(),
});
export type GameLoginInfo = z.infer<typeof GameLoginInfo>;
