import type { SocialProvider, SocialSettingsBody, SocialSettingsView } from '@kubik/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { defineSettings } from '../../lib/settings.ts';

/**
 * The providers' keys as the owner set them in the admin (Настройки → Вход через соцсети); the
 * environment (VK_CLIENT_ID…, docs/social.md) gives the defaults. Secrets are stored sealed
 * (lib/secret-box.ts) and never leave the server.
 */
const Stored = z.object({
  vk_client_id: z.string().optional(),
  vk_client_secret_sealed: z.string().optional(),
  vk_base_url: z.string().optional(),
  telegram_bot_name: z.string().optional(),
  telegram_bot_token_sealed: z.string().optional(),
  telegram_base_url: z.string().optional(),
  discord_client_id: z.string().optional(),
  discord_client_secret_sealed: z.string().optional(),
  discord_base_url: z.string().optional(),
});

export const SocialSettings = defineSettings({ key: 'social', schema: Stored, defaults: () => ({}) });

export interface SocialKeys {
  vk: { clientId: string; clientSecret: string; baseUrl: string; secretSource: 'set' | 'env' | 'unset' } | null;
  telegram: { botToken: string; botName: string; baseUrl: string; secretSource: 'set' | 'env' | 'unset' } | null;
  discord: { clientId: string; clientSecret: string; baseUrl: string; secretSource: 'set' | 'env' | 'unset' } | null;
}

const boxes = new WeakMap<AppContext, SecretBox>();
function boxOf(ctx: AppContext): SecretBox {
  let box = boxes.get(ctx);
  if (!box) boxes.set(ctx, (box = new SecretBox(ctx.config.secretsKey, ctx.config.dataDir)));
  return box;
}

const trimUrl = (u: string) => u.replace(/\/+$/, '');

function secret(ctx: AppContext, sealed: string | undefined, env: string): { value: string; source: 'set' | 'env' | 'unset' } {
  const opened = sealed ? boxOf(ctx).open(sealed) : null;
  if (opened) return { value: opened, source: 'set' };
  return env ? { value: env, source: 'env' } : { value: '', source: 'unset' };
}

interface Effective {
  vk: { clientId: string; clientSecret: string; baseUrl: string; secretSource: 'set' | 'env' | 'unset' };
  telegram: { botToken: string; botName: string; baseUrl: string; secretSource: 'set' | 'env' | 'unset' };
  discord: { clientId: string; clientSecret: string; baseUrl: string; secretSource: 'set' | 'env' | 'unset' };
}

async function effective(ctx: AppContext): Promise<Effective> {
  const s = await ctx.settings.get(SocialSettings);
  const env = ctx.config.social;
  const vkSecret = secret(ctx, s.vk_client_secret_sealed, env.vk.clientSecret);
  const tgToken = secret(ctx, s.telegram_bot_token_sealed, env.telegram.botToken);
  const dsSecret = secret(ctx, s.discord_client_secret_sealed, env.discord.clientSecret);
  return {
    vk: {
      clientId: s.vk_client_id ?? env.vk.clientId,
      clientSecret: vkSecret.value,
      baseUrl: trimUrl(s.vk_base_url ?? env.vk.baseUrl),
      secretSource: vkSecret.source,
    },
    telegram: {
      botToken: tgToken.value,
      botName: s.telegram_bot_name ?? env.telegram.botName,
      baseUrl: trimUrl(s.telegram_base_url ?? env.telegram.baseUrl),
      secretSource: tgToken.source,
    },
    discord: {
      clientId: s.discord_client_id ?? env.discord.clientId,
      clientSecret: dsSecret.value,
      baseUrl: trimUrl(s.discord_base_url ?? env.discord.baseUrl),
      secretSource: dsSecret.source,
    },
  };
}

/** The providers whose keys are all set; a provider without keys is null (not shown, refused). */
export async function socialKeys(ctx: AppContext): Promise<SocialKeys> {
  const e = await effective(ctx);
  return {
    // VK ID's web flow proves the client with PKCE; the secret key is kept for VK's other APIs, not required here.
    vk: e.vk.clientId ? e.vk : null,
    telegram: e.telegram.botToken && e.telegram.botName ? e.telegram : null,
    discord: e.discord.clientId && e.discord.clientSecret ? e.discord : null,
  };
}

export async function enabledProviders(ctx: AppContext): Promise<SocialProvider[]> {
  const keys = await socialKeys(ctx);
  return (['vk', 'telegram', 'discord'] as const).filter((p) => keys[p] !== null);
}

export function redirectUri(ctx: AppContext, provider: 'vk' | 'discord'): string {
  return `${ctx.config.publicUrl}/api/auth/${provider}/callback`;
}

export async function settingsView(ctx: AppContext): Promise<SocialSettingsView> {
  const e = await effective(ctx);
  return {
    vk: { client_id: e.vk.clientId, client_secret: e.vk.secretSource, base_url: e.vk.baseUrl, redirect_uri: redirectUri(ctx, 'vk') },
    telegram: { bot_name: e.telegram.botName, bot_token: e.telegram.secretSource, base_url: e.telegram.baseUrl },
    discord: {
      client_id: e.discord.clientId,
      client_secret: e.discord.secretSource,
      base_url: e.discord.baseUrl,
      redirect_uri: redirectUri(ctx, 'discord'),
    },
  };
}

const SECRET_FIELDS = {
  vk_client_secret: 'vk_client_secret_sealed',
  telegram_bot_token: 'telegram_bot_token_sealed',
  discord_client_secret: 'discord_client_secret_sealed',
} as const;

/** Applies the owner's changes: secrets are sealed before they are stored; null returns a field to its default. */
export async function saveSettings(ctx: AppContext, body: SocialSettingsBody, actorId: number): Promise<SocialSettingsView> {
  const patch: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(body) as [keyof SocialSettingsBody, string | null | undefined][]) {
    if (v === undefined) continue;
    const sealedKey = k in SECRET_FIELDS ? SECRET_FIELDS[k as keyof typeof SECRET_FIELDS] : null;
    if (sealedKey) patch[sealedKey] = v === null || v === '' ? undefined : boxOf(ctx).seal(v);
    else patch[k] = v === null || v === '' ? undefined : v;
  }
  // The audit row (lib/settings.ts) records the sealed values only.
  await ctx.settings.set(SocialSettings, patch, { actorId });
  return settingsView(ctx);
}
