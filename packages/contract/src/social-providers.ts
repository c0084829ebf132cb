// No zod here: the login page's social buttons import this file alone
// ('@kubik/contract/social-providers'), and the page must not carry the contract's schemas.

export const SOCIAL_PROVIDERS = ['vk', 'telegram', 'discord'] as const;

export const SOCIAL_PROVIDER_TITLES: Record<(typeof SOCIAL_PROVIDERS)[number], string> = {
  vk: 'VK ID',
  telegram: 'Telegram',
  discord: 'Discord',
};
