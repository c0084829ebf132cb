import type { SiteSettings } from '@kubik/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../lib/api.ts';

/** What the shell shows until the settings arrive (and if they never do): the server's own defaults. */
const FALLBACK: SiteSettings = {
  name: 'Kubik',
  description: '',
  logo_url: '',
  favicon_url: '',
  accent_color: '#4ade80',
  game_address: '',
  home_banner_url: '',
  home_banner_title: '',
  home_banner_text: '',
  home_banner_link: '',
  support_vk: '',
  support_telegram: '',
  support_discord: '',
  support_email: '',
  launcher_version: 'v1.0.0',
  launcher_windows_url: '',
  launcher_linux_url: '',
  footer_text: '',
  legal_seller: '',
  legal_inn: '',
  legal_ogrn: '',
  seo_description: '',
  guest_purchases: false,
  donation_goal: 0,
  show_purchase_amounts: false,
};

export const SITE_KEY = ['site', 'settings'] as const;
export const SITE_SETTINGS_PATH = '/api/site/settings';
export const fetchSite = () => api<SiteSettings>(SITE_SETTINGS_PATH);

/** The owner's site settings (Админ-панель → Настройки): name, logo, colour, links, footer. */
export function useSite(): SiteSettings {
  const { data } = useQuery({ queryKey: SITE_KEY, queryFn: fetchSite, staleTime: 5 * 60_000 });
  return data ?? FALLBACK;
}
