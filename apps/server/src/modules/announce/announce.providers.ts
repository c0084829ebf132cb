import type { AnnounceChannel } from '@kubik/contract';
import type { AnnounceConfig } from './announce.settings.ts';

/**
 * One message to one provider, and what its answer means for the queue:
 * - Discord (an execute-webhook POST): 2xx sent; 429 → wait `retry_after` seconds (body, or the
 *   Retry-After header) before anything more goes to that webhook; after a success with
 *   X-RateLimit-Remaining 0, wait X-RateLimit-Reset-After before the next one; 404/401/403 (the
 *   webhook was deleted) and other 4xx are final; 5xx and network errors are retried.
 * - Telegram (Bot API sendMessage): `ok: true` sent; 429 → `parameters.retry_after` seconds; a
 *   `migrate_to_chat_id` (the group became a supergroup) is final with what to set; other 4xx final.
 * - VK (wall.post or messages.send): `response` sent; error 6 (too many per second) → 1 s, 9
 *   (flood control) → 1 h, 29 (the method's daily quota) → 6 h, 10 (internal) retried, the rest
 *   (5 authorization, 15/214 access, 100 parameters, 901 messages forbidden…) final.
 * Each answer's text for the owner never holds the token or the webhook address.
 */

export type SendOutcome =
  | { kind: 'sent'; pauseMs?: number }
  /** Wait this long before anything more goes to this channel. */
  | { kind: 'wait'; ms: number; error: string }
  | { kind: 'retry'; error: string }
  | { kind: 'final'; error: string };

const TIMEOUT_MS = 10_000;
export const TEXT_LIMITS: Record<AnnounceChannel, number> = { discord: 2000, telegram: 4096, vk: 4000 };

async function post(url: string, init: RequestInit): Promise<Response> {
  return fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
}

async function json(res: Response): Promise<Record<string, unknown>> {
  try {
    const v = (await res.json()) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const seconds = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
};

const networkError = (err: unknown) =>
  `Сеть: ${(err as Error)?.name === 'TimeoutError' ? `нет ответа за ${TIMEOUT_MS / 1000} с` : String((err as Error)?.message ?? err).slice(0, 120)}`;

export async function sendDiscord(cfg: NonNullable<AnnounceConfig['discord']>, text: string): Promise<SendOutcome> {
  let res: Response;
  try {
    res = await post(`${cfg.webhook.replace(/\/+$/, '')}?wait=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // No @everyone, role or user pings whatever the text holds.
      body: JSON.stringify({ content: text, allowed_mentions: { parse: [] } }),
    });
  } catch (err) {
    return { kind: 'retry', error: networkError(err) };
  }
  const body = await json(res);
  if (res.ok) {
    const remaining = res.headers.get('x-ratelimit-remaining');
    const resetAfter = seconds(res.headers.get('x-ratelimit-reset-after'));
    return remaining === '0' && resetAfter !== null ? { kind: 'sent', pauseMs: Math.ceil(resetAfter * 1000) } : { kind: 'sent' };
  }
  if (res.status === 429) {
    const after = seconds(body.retry_after) ?? seconds(res.headers.get('retry-after')) ?? 5;
    return { kind: 'wait', ms: Math.ceil(after * 1000), error: `Discord: слишком часто, ждём ${after} с` };
  }
  const why = typeof body.message === 'string' ? `: ${body.message.slice(0, 120)}` : '';
  if (res.status >= 500) return { kind: 'retry', error: `Discord ответил ${res.status}${why}` };
  if (res.status === 404 || res.status === 401 || res.status === 403)
    return { kind: 'final', error: `Discord: вебхук не найден или удалён (${res.status}) — укажите новый адрес` };
  return { kind: 'final', error: `Discord отказал (${res.status})${why}` };
}

export async function sendTelegram(cfg: NonNullable<AnnounceConfig['telegram']>, html: string): Promise<SendOutcome> {
  let res: Response;
  try {
    res = await post(`${cfg.api}/bot${cfg.token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: cfg.chatId, text: html, parse_mode: 'HTML', link_preview_options: { is_disabled: true } }),
    });
  } catch (err) {
    return { kind: 'retry', error: networkError(err) };
  }
  const body = await json(res);
  if (body.ok === true) return { kind: 'sent' };
  const params = (body.parameters ?? {}) as Record<string, unknown>;
  const description = typeof body.description === 'string' ? body.description.slice(0, 160) : `HTTP ${res.status}`;
  const code = Number(body.error_code ?? res.status);
  if (code === 429) {
    const after = seconds(params.retry_after) ?? 5;
    return { kind: 'wait', ms: Math.ceil(after * 1000), error: `Telegram: слишком часто, ждём ${after} с` };
  }
  if (params.migrate_to_chat_id !== undefined)
    return { kind: 'final', error: `Telegram: группа стала супергруппой — укажите чат ${String(params.migrate_to_chat_id)}` };
  if (code >= 500 || res.status >= 500) return { kind: 'retry', error: `Telegram: ${description}` };
  if (code === 401) return { kind: 'final', error: 'Telegram: токен бота не принят — проверьте его у @BotFather' };
  return { kind: 'final', error: `Telegram: ${description}` };
}

const VK_VERSION = '5.199';

export async function sendVk(cfg: NonNullable<AnnounceConfig['vk']>, text: string, messageId: number): Promise<SendOutcome> {
  const form = new URLSearchParams({ access_token: cfg.token, v: VK_VERSION, message: text });
  let method: string;
  if (cfg.mode === 'wall') {
    method = 'wall.post';
    form.set('owner_id', `-${cfg.groupId}`);
    form.set('from_group', '1');
  } else {
    method = 'messages.send';
    form.set('peer_id', cfg.peerId);
    form.set('group_id', cfg.groupId);
    // VK drops a second message with the same random_id from this sender: a retry after a lost answer is not a repeat.
    form.set('random_id', String(messageId));
  }
  let res: Response;
  try {
    res = await post(`${cfg.api}/method/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
  } catch (err) {
    return { kind: 'retry', error: networkError(err) };
  }
  const body = await json(res);
  if (body.response !== undefined) return { kind: 'sent' };
  const error = (body.error ?? {}) as Record<string, unknown>;
  const code = Number(error.error_code ?? 0);
  const msg = typeof error.error_msg === 'string' ? error.error_msg.slice(0, 160) : `HTTP ${res.status}`;
  if (code === 6) return { kind: 'wait', ms: 1000, error: `VK: слишком много запросов в секунду (6)` };
  if (code === 9) return { kind: 'wait', ms: 3_600_000, error: `VK: контроль флуда (9), пробуем через час` };
  if (code === 29) return { kind: 'wait', ms: 6 * 3_600_000, error: `VK: исчерпан дневной лимит метода (29), пробуем позже` };
  if (code === 10 || res.status >= 500) return { kind: 'retry', error: `VK: ${msg} (${code || res.status})` };
  if (code === 5) return { kind: 'final', error: 'VK: ключ доступа не принят (5) — создайте новый ключ сообщества' };
  return { kind: 'final', error: `VK: ${msg} (${code})` };
}

export function send(channel: AnnounceChannel, cfg: AnnounceConfig, text: string, messageId: number): Promise<SendOutcome> {
  if (channel === 'discord' && cfg.discord) return sendDiscord(cfg.discord, text);
  if (channel === 'telegram' && cfg.telegram) return sendTelegram(cfg.telegram, text);
  if (channel === 'vk' && cfg.vk) return sendVk(cfg.vk, text, messageId);
  return Promise.resolve({ kind: 'final', error: 'Канал отключён в настройках' });
}
