import { ANNOUNCE_DEFAULT_TEMPLATES, ANNOUNCE_EVENTS, type AnnounceEvent, type AnnounceSettingsBody } from '@kubik/contract';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { defineSettings } from '../../lib/settings.ts';

/**
 * Where and what the site announces (Админ-панель → Объявления), the owner's alone. The Discord
 * webhook address and the Telegram and VK tokens are sealed (lib/secret-box.ts) under keys named
 * so the audit log masks them, and never shown back. Each is kept with the provider's address it
 * was typed for (DISCORD_URL, TELEGRAM_API_URL, VK_API_URL at that moment): when the environment
 * later names another one, the secret is not sent there — the owner types it again.
 */
const Stored = z.object({
  discord_webhook_secret_sealed: z.string().optional(),
  discord_origin: z.string().optional(),
  telegram_token_secret_sealed: z.string().optional(),
  telegram_api: z.string().optional(),
  telegram_chat_id: z.string().optional(),
  vk_token_secret_sealed: z.string().optional(),
  vk_api: z.string().optional(),
  vk_group_id: z.string().optional(),
  vk_mode: z.enum(['wall', 'messages']).optional(),
  vk_peer_id: z.string().optional(),
  events: z.array(z.string()).optional(),
  purchase_amount: z.enum(['shown', 'hidden']).optional(),
  templates: z.record(z.string(), z.string()).optional(),
});
type Stored = z.infer<typeof Stored>;

export const AnnounceDoc = defineSettings({ key: 'announce', schema: Stored, defaults: () => ({}) });

export const ANNOUNCE_TEXTS = {
  discordAddress: 'Адрес вебхука Discord: https://discord.com/api/webhooks/<номер>/<ключ> (Настройки канала → Интеграции → Вебхуки)',
} as const;

const boxes = new WeakMap<Readonly<Config>, SecretBox>();
function boxOf(config: Readonly<Config>): SecretBox {
  let box = boxes.get(config);
  if (!box) boxes.set(config, (box = new SecretBox(config.secretsKey, config.dataDir)));
  return box;
}

/** Everything a send needs; a channel is null while it is not set up (or was set up for another provider address). */
export interface AnnounceConfig {
  discord: { webhook: string } | null;
  telegram: { api: string; token: string; chatId: string } | null;
  vk: { api: string; token: string; groupId: string; mode: 'wall' | 'messages'; peerId: string } | null;
  events: AnnounceEvent[];
  purchaseAmount: 'shown' | 'hidden';
  templates: Record<AnnounceEvent, string>;
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};

/**
 * Why `value` is not a webhook of DISCORD_URL's Discord, or null: `<DISCORD_URL>/api/webhooks/<id>/<token>`
 * on that very origin (https://discord.com by default), without a user name or a query. The site
 * sends messages nowhere else, so no typed address can make it call an internal one.
 */
export function discordWebhookProblem(value: string, discordUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ANNOUNCE_TEXTS.discordAddress;
  }
  if (url.origin !== originOf(discordUrl) || url.username || url.password || url.search || url.hash) return ANNOUNCE_TEXTS.discordAddress;
  if (!/^\/api\/webhooks\/\d{5,25}\/[A-Za-z0-9_-]{20,100}\/?$/.test(url.pathname)) return ANNOUNCE_TEXTS.discordAddress;
  return null;
}

export function resolveAnnounce(config: Readonly<Config>, s: Stored): AnnounceConfig {
  const box = boxOf(config);
  const open = (sealed: string | undefined) => (sealed ? box.open(sealed) : null);
  const a = config.announce;
  const webhook = s.discord_origin === originOf(a.discordUrl) ? open(s.discord_webhook_secret_sealed) : null;
  const tgToken = s.telegram_api === a.telegramApiUrl ? open(s.telegram_token_secret_sealed) : null;
  const vkToken = s.vk_api === a.vkApiUrl ? open(s.vk_token_secret_sealed) : null;
  const templates = { ...ANNOUNCE_DEFAULT_TEMPLATES };
  for (const e of ANNOUNCE_EVENTS) if (typeof s.templates?.[e] === 'string') templates[e] = s.templates[e];
  return {
    discord: webhook && !discordWebhookProblem(webhook, a.discordUrl) ? { webhook } : null,
    telegram: tgToken && s.telegram_chat_id ? { api: a.telegramApiUrl, token: tgToken, chatId: s.telegram_chat_id } : null,
    vk:
      vkToken && s.vk_group_id && ((s.vk_mode ?? 'wall') === 'wall' || s.vk_peer_id)
        ? { api: a.vkApiUrl, token: vkToken, groupId: s.vk_group_id, mode: s.vk_mode ?? 'wall', peerId: s.vk_peer_id ?? '' }
        : null,
    events: (s.events ?? []).filter((e): e is AnnounceEvent => (ANNOUNCE_EVENTS as readonly string[]).includes(e)),
    purchaseAmount: s.purchase_amount ?? 'hidden',
    templates,
  };
}

export async function announceConfig(ctx: AppContext): Promise<AnnounceConfig> {
  return resolveAnnounce(ctx.config, await ctx.settings.get(AnnounceDoc));
}

export async function storedAnnounce(ctx: AppContext): Promise<Stored> {
  return ctx.settings.get(AnnounceDoc);
}

/** The owner's changes: a secret sent replaces the stored one (null removes it); one left out stays. */
export async function saveAnnounce(ctx: AppContext, body: AnnounceSettingsBody, actorId: number): Promise<void> {
  const a = ctx.config.announce;
  if (body.discord_webhook_url) {
    const why = discordWebhookProblem(body.discord_webhook_url, a.discordUrl);
    if (why) throw badRequest(why, { code: 'invalid', field: 'discord_webhook_url' });
  }
  const box = boxOf(ctx.config);
  await ctx.settings.set(
    AnnounceDoc,
    (stored) => {
      const patch: Partial<Stored> = {};
      if (body.discord_webhook_url !== undefined) {
        patch.discord_webhook_secret_sealed = body.discord_webhook_url ? box.seal(body.discord_webhook_url) : undefined;
        patch.discord_origin = body.discord_webhook_url ? originOf(a.discordUrl) : undefined;
      }
      if (body.telegram_bot_token !== undefined) {
        patch.telegram_token_secret_sealed = body.telegram_bot_token ? box.seal(body.telegram_bot_token) : undefined;
        patch.telegram_api = body.telegram_bot_token ? a.telegramApiUrl : undefined;
      }
      if (body.vk_token !== undefined) {
        patch.vk_token_secret_sealed = body.vk_token ? box.seal(body.vk_token) : undefined;
        patch.vk_api = body.vk_token ? a.vkApiUrl : undefined;
      }
      if (body.telegram_chat_id !== undefined) patch.telegram_chat_id = body.telegram_chat_id || undefined;
      if (body.vk_group_id !== undefined) patch.vk_group_id = body.vk_group_id || undefined;
      if (body.vk_mode !== undefined) patch.vk_mode = body.vk_mode;
      if (body.vk_peer_id !== undefined) patch.vk_peer_id = body.vk_peer_id || undefined;
      if (body.events !== undefined) patch.events = [...new Set(body.events)];
      if (body.purchase_amount !== undefined) patch.purchase_amount = body.purchase_amount;
      if (body.templates !== undefined) {
        const templates = { ...stored.templates };
        for (const [k, v] of Object.entries(body.templates)) {
          // A template set back to the default (or emptied) follows the default from then on.
          if (!v || !v.trim() || v === ANNOUNCE_DEFAULT_TEMPLATES[k as AnnounceEvent]) delete templates[k];
          else templates[k] = v;
        }
        patch.templates = templates;
      }
      return patch;
    },
    { actorId },
  );
}
