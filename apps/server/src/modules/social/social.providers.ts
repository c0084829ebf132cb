import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { TelegramAuthBody } from '@kubik/contract';
import { sameSecret } from '../../lib/same-secret.ts';
import type { SocialKeys } from './social.settings.ts';

/**
 * The providers' sides of a login, written from their documentation (docs/social.md):
 * - VK ID (OAuth 2.1, id.vk.com): authorize with PKCE S256; the callback brings code, state and
 *   device_id; POST /oauth2/auth exchanges them (with the verifier) for an access token; POST
 *   /oauth2/user_info names the user.
 * - Discord OAuth2: authorize with state and PKCE; POST /api/oauth2/token (client secret and
 *   verifier); GET /api/users/@me with the bearer token.
 * - Telegram Login: no call at all; the data is signed with HMAC-SHA256 under SHA-256(bot token).
 */

/** What a provider says about the account: its id (as text) and a name to show. */
export interface ProviderAccount {
  id: string;
  displayName: string;
  /** A game-name suggestion (login, screen name), not checked. */
  nick: string;
}

export class ProviderRefused extends Error {}

const TIMEOUT_MS = 10_000;

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url'); // 64 characters of [A-Za-z0-9_-]
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function vkAuthorizeUrl(vk: NonNullable<SocialKeys['vk']>, p: { redirectUri: string; state: string; challenge: string }): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: vk.clientId,
    redirect_uri: p.redirectUri,
    state: p.state,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    scope: 'email',
  });
  return `${vk.baseUrl}/authorize?${q.toString()}`;
}

export function discordAuthorizeUrl(
  ds: NonNullable<SocialKeys['discord']>,
  p: { redirectUri: string; state: string; challenge: string },
): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: ds.clientId,
    redirect_uri: p.redirectUri,
    scope: 'identify',
    state: p.state,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
  });
  return `${ds.baseUrl}/oauth2/authorize?${q.toString()}`;
}

async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: new URLSearchParams(fields).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new ProviderRefused(`no answer: ${(err as Error).message}`);
  }
  return readJson(res);
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderRefused(`HTTP ${res.status}: not JSON`);
  }
  if (!res.ok) throw new ProviderRefused(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  if (json && typeof json === 'object' && 'error' in json) throw new ProviderRefused(text.slice(0, 200));
  return json;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** VK ID: the code (with its device_id and our verifier) for a token, the token for the user. */
export async function vkAccount(
  vk: NonNullable<SocialKeys['vk']>,
  p: { code: string; deviceId: string; verifier: string; redirectUri: string; state: string },
): Promise<ProviderAccount> {
  const token = (await postForm(`${vk.baseUrl}/oauth2/auth`, {
    grant_type: 'authorization_code',
    code: p.code,
    code_verifier: p.verifier,
    client_id: vk.clientId,
    device_id: p.deviceId,
    redirect_uri: p.redirectUri,
    state: p.state,
  })) as { access_token?: unknown; state?: unknown };
  const accessToken = str(token.access_token);
  if (!accessToken) throw new ProviderRefused('no access_token');
  // VK ID returns the state it was given: one that differs is not our exchange.
  if (token.state !== undefined && token.state !== p.state) throw new ProviderRefused('state mismatch');
  const info = (await postForm(`${vk.baseUrl}/oauth2/user_info`, { client_id: vk.clientId, access_token: accessToken })) as {
    user?: { user_id?: unknown; first_name?: unknown; last_name?: unknown };
  };
  const id = str(info.user?.user_id);
  if (!/^\d{1,20}$/.test(id)) throw new ProviderRefused('no user_id');
  const name = [str(info.user?.first_name), str(info.user?.last_name)].filter(Boolean).join(' ');
  return { id, displayName: name || `id${id}`, nick: str(info.user?.first_name) };
}

/** Discord: the code (with the client secret and our verifier) for a token, the token for /users/@me. */
export async function discordAccount(
  ds: NonNullable<SocialKeys['discord']>,
  p: { code: string; verifier: string; redirectUri: string },
): Promise<ProviderAccount> {
  const token = (await postForm(`${ds.baseUrl}/api/oauth2/token`, {
    grant_type: 'authorization_code',
    code: p.code,
    redirect_uri: p.redirectUri,
    client_id: ds.clientId,
    client_secret: ds.clientSecret,
    code_verifier: p.verifier,
  })) as { access_token?: unknown };
  const accessToken = str(token.access_token);
  if (!accessToken) throw new ProviderRefused('no access_token');
  let res: Response;
  try {
    res = await fetch(`${ds.baseUrl}/api/users/@me`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new ProviderRefused(`no answer: ${(err as Error).message}`);
  }
  const me = (await readJson(res)) as { id?: unknown; username?: unknown; global_name?: unknown };
  const id = str(me.id);
  if (!/^\d{1,20}$/.test(id)) throw new ProviderRefused('no id');
  const username = str(me.username);
  return { id, displayName: str(me.global_name) || username || id, nick: username };
}

export const TELEGRAM_MAX_AGE_SEC = 86_400;
/** A clock ahead of ours by this much is forgiven. */
export const TELEGRAM_SKEW_SEC = 300;

/**
 * Telegram's check (core.telegram.org/widgets/login#checking-authorization): the data-check-string
 * is every received field but `hash`, sorted by key, `key=value` joined by «\n»; the hash is the
 * hex HMAC-SHA256 of it under SHA-256 of the bot token. Costs two hashes, nothing else.
 */
export function telegramCheck(botToken: string, data: TelegramAuthBody, nowSec: number): 'ok' | 'bad' | 'expired' {
  const fields = Object.entries(data)
    .filter(([k, v]) => k !== 'hash' && v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort();
  const secretKey = createHash('sha256').update(botToken).digest();
  const expected = createHmac('sha256', secretKey).update(fields.join('\n')).digest('hex');
  if (!sameSecret(data.hash, expected)) return 'bad';
  if (data.auth_date < nowSec - TELEGRAM_MAX_AGE_SEC || data.auth_date > nowSec + TELEGRAM_SKEW_SEC) return 'expired';
  return 'ok';
}

export function telegramAccount(data: TelegramAuthBody): ProviderAccount {
  const name = [data.first_name, data.last_name].filter(Boolean).join(' ');
  return {
    id: String(data.id),
    displayName: data.username ? `@${data.username}` : name || String(data.id),
    nick: data.username ?? data.first_name,
  };
}

/** The bot's numeric id: the part of its token before the colon (public; oauth.telegram.org asks for it). */
export function telegramBotId(botToken: string): string {
  return botToken.split(':')[0] ?? '';
}
