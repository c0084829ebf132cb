import { DEFAULT_ACCENT, SiteSettings } from '@kubik/contract';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { defineSettings } from '../../lib/settings.ts';

export const DEFAULT_FOOTER_TEXT = 'Игровой сервер и его сообщество. Сайт не связан с Mojang и Microsoft.';
export const DEFAULT_SEO_DESCRIPTION = 'Сайт игрового сервера: новости, лаунчер, донат, список серверов и личный кабинет.';

/** An environment value the schema would refuse (SUPPORT_VK_URL=#) must not break the site: it counts as unset. */
function fit<K extends keyof typeof SiteSettings.shape>(key: K, value: string): string {
  return SiteSettings.shape[key].safeParse(value).success ? value : '';
}

function defaults(config: Readonly<Config>): SiteSettings {
  return {
    name: fit('name', config.siteName) || 'Kubik',
    description: '',
    logo_url: '',
    favicon_url: '',
    accent_color: DEFAULT_ACCENT,
    game_address: fit('game_address', config.gameAddress),
    home_banner_url: '',
    home_banner_title: '',
    home_banner_text: '',
    home_banner_link: '',
    support_vk: fit('support_vk', config.support.vk),
    support_telegram: fit('support_telegram', config.support.telegram),
    support_discord: fit('support_discord', config.support.discord),
    support_email: fit('support_email', config.support.email),
    launcher_version: fit('launcher_version', config.launcher.version),
    launcher_windows_url: fit('launcher_windows_url', config.launcher.windowsUrl),
    launcher_linux_url: fit('launcher_linux_url', config.launcher.linuxUrl),
    footer_text: DEFAULT_FOOTER_TEXT,
    legal_seller: '',
    legal_inn: '',
    legal_ogrn: '',
    seo_description: DEFAULT_SEO_DESCRIPTION,
    guest_purchases: false,
    donation_goal: 0,
    show_purchase_amounts: false,
  };
}

/**
 * The site's settings the owner edits in Админ-панель → Настройки: name, look, the game's
 * address, support and launcher links, footer and legal details. Environment variables
 * (SITE_NAME, LAUNCHER_*, SUPPORT_*, GAME_ADDRESS) are the defaults.
 */
export const SiteSettingsDoc = defineSettings({ key: 'site', schema: SiteSettings, defaults });

/** The site's name as the owner set it (SITE_NAME until then), for letters and other texts. */
export async function siteName(ctx: Pick<AppContext, 'settings'>): Promise<string> {
  return (await ctx.settings.get(SiteSettingsDoc)).name;
}
