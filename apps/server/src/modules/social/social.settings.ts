import { SOCIAL_URL_HOSTS, type SocialProvider, type SocialSettingsBody, type SocialSettingsView } from '@kubik/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { ownerOnly } from '../../lib/owner-only.ts';
import { addressProblem, normalAddress, OWNER_ONLY_ADDRESS, sameAddress } from '../../lib/provider-address.ts';
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
  // When the secret typed in the admin was dropped because the base address changed (named
  // without «secret», which the audit log would mask).
  vk_key_dropped_at: z.number().optional(),
  telegram_key_dropped_at: z.number().optional(),
  discord_key_dropped_at: z.number().optional(),
});
type Stored = z.infer<typeof Stored>;

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

/**
 * The stored base address of a provider when it may be used (lib/provider-address.ts); one stored
 * before those rules that breaks them is left out, so the environment's applies.
 */
function usableBaseUrl(ctx: AppContext, provider: SocialProvider, stored: string | undefined): string | undefined {
  if (stored === undefined) return undefined;
  return addressProblem(stored, SOCIAL_URL_HOSTS[provider], ctx.config.social[provider].baseUrl) === null ? stored : undefined;
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
      baseUrl: trimUrl(usableBaseUrl(ctx, 'vk', s.vk_base_url) ?? env.vk.baseUrl),
      secretSource: vkSecret.source,
    },
    telegram: {
      botToken: tgToken.value,
      botName: s.telegram_bot_name ?? env.telegram.botName,
      baseUrl: trimUrl(usableBaseUrl(ctx, 'telegram', s.telegram_base_url) ?? env.telegram.baseUrl),
      secretSource: tgToken.source,
    },
    discord: {
      clientId: s.discord_client_id ?? env.discord.clientId,
      clientSecret: dsSecret.value,
      baseUrl: trimUrl(usableBaseUrl(ctx, 'discord', s.discord_base_url) ?? env.discord.baseUrl),
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
  const s = await ctx.settings.get(SocialSettings);
  // A note that the secret was dropped is worth showing only while no secret is typed again.
  const dropped = (at: number | undefined, source: 'set' | 'env' | 'unset') => (at !== undefined && source !== 'set' ? at : null);
  return {
    vk: {
      client_id: e.vk.clientId,
      client_secret: e.vk.secretSource,
      client_secret_dropped_at: dropped(s.vk_key_dropped_at, e.vk.secretSource),
      base_url: e.vk.baseUrl,
      redirect_uri: redirectUri(ctx, 'vk'),
    },
    telegram: {
      bot_name: e.telegram.botName,
      bot_token: e.telegram.secretSource,
      bot_token_dropped_at: dropped(s.telegram_key_dropped_at, e.telegram.secretSource),
      base_url: e.telegram.baseUrl,
    },
    discord: {
      client_id: e.discord.clientId,
      client_secret: e.discord.secretSource,
      client_secret_dropped_at: dropped(s.discord_key_dropped_at, e.discord.secretSource),
      base_url: e.discord.baseUrl,
      redirect_uri: redirectUri(ctx, 'discord'),
    },
  };
}

/** Each provider's secret as the body names it, as it is stored sealed, and the note of its drop. */
const SECRETS = {
  vk: { body: 'vk_client_secret', sealed: 'vk_client_secret_sealed', droppedAt: 'vk_key_dropped_at' },
  telegram: { body: 'telegram_bot_token', sealed: 'telegram_bot_token_sealed', droppedAt: 'telegram_key_dropped_at' },
  discord: { body: 'discord_client_secret', sealed: 'discord_client_secret_sealed', droppedAt: 'discord_key_dropped_at' },
} as const satisfies Record<SocialProvider, { body: keyof SocialSettingsBody; sealed: keyof Stored; droppedAt: keyof Stored }>;

const PROVIDERS = ['vk', 'telegram', 'discord'] as const;

/** The plain fields that name the site's app (or bot) at each provider, with the environment's value. */
const APP_FIELDS = {
  vk_client_id: (ctx: AppContext) => ctx.config.social.vk.clientId,
  telegram_bot_name: (ctx: AppContext) => ctx.config.social.telegram.botName,
  discord_client_id: (ctx: AppContext) => ctx.config.social.discord.clientId,
} as const;

/**
 * Refusal of a staff member's change (403 owner_only, beside the field): the app a login goes
 * through and its keys decide whom the site believes a player is; a staff member who swapped in
 * an app of their own would collect the players' logins or sign in as anyone.
 */
export const SOCIAL_OWNER_ONLY = 'Ключи входа через соцсети меняет только владелец сайта';

/**
 * Applies the changes: secrets are sealed before they are stored; null returns a field to its
 * default. Every field is the owner's alone to change: a base address (lib/provider-address.ts),
 * an app's id or bot name (SOCIAL_OWNER_ONLY) and a secret. A base address is https on the
 * provider's own host or the environment's, and its change drops the secret stored for that
 * provider in the same transaction (unless a new one comes in this request), so the secret is never
 * sent to the new host. A value sent as it stands (the form sends every field) is no change; a
 * staff member's is not written.
 */
export async function saveSettings(
  ctx: AppContext,
  body: SocialSettingsBody,
  editor: { id: number; owner: boolean },
): Promise<SocialSettingsView> {
  const box = boxOf(ctx);
  await ctx.settings.set(
    SocialSettings,
    (stored: Partial<Stored>) => {
      const patch: Record<string, string | number | undefined> = {};
      const now = Date.now();
      for (const p of PROVIDERS) {
        const urlKey = `${p}_base_url` as const;
        const secret = SECRETS[p];
        const v = body[urlKey] === null || body[urlKey] === '' ? null : body[urlKey];
        if (v !== undefined) {
          const env = ctx.config.social[p].baseUrl;
          const inUse = usableBaseUrl(ctx, p, stored[urlKey]) ?? env;
          if (sameAddress(inUse, v ?? env)) {
            if (v === null) patch[urlKey] = undefined;
          } else {
            if (!editor.owner) throw ownerOnly(OWNER_ONLY_ADDRESS, urlKey);
            const problem = v === null ? null : addressProblem(v, SOCIAL_URL_HOSTS[p], env);
            if (problem) throw badRequest(problem, { code: 'invalid', field: urlKey });
            patch[urlKey] = v === null ? undefined : normalAddress(v);
            if (stored[secret.sealed] !== undefined) {
              patch[secret.sealed] = undefined;
              patch[secret.droppedAt] = now;
            }
          }
        }
        const typed = body[secret.body];
        if (typed !== undefined) {
          const removal = typed === null || typed === '';
          if (!editor.owner) {
            if (removal && stored[secret.sealed] === undefined) continue;
            throw ownerOnly(SOCIAL_OWNER_ONLY, secret.body);
          }
          patch[secret.sealed] = removal ? undefined : box.seal(typed);
          patch[secret.droppedAt] = undefined;
        }
      }
      for (const [k, envOf] of Object.entries(APP_FIELDS) as [keyof typeof APP_FIELDS, (c: AppContext) => string][]) {
        const v = body[k];
        if (v === undefined) continue;
        const next = v === null || v === '' ? undefined : v;
        if (!editor.owner) {
          if ((stored[k] ?? envOf(ctx)) === (next ?? envOf(ctx))) continue;
          throw ownerOnly(SOCIAL_OWNER_ONLY, k);
        }
        patch[k] = next;
      }
      return patch as Partial<Stored>;
    },
    // The audit row (lib/settings.ts) records the sealed values only: a dropped secret shows as gone.
    { actorId: editor.id },
  );
  return settingsView(ctx);
}
