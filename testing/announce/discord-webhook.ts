import type http from 'node:http';
import { HttpDouble, sendJson, type RequestBody } from '../payments/http-util.ts';

/**
 * Discord's Execute Webhook (`POST /api/webhooks/{id}/{token}?wait=true`), from Discord's
 * developer documentation (Webhook resource; Rate Limits; Message allowed_mentions):
 * - a known webhook with `content` of 1–2000 characters answers 200 with the message object
 *   (204 without `?wait=true`); an unknown id or a wrong token 404 `{code: 10015, message: "Unknown Webhook"}`;
 *   empty or too long content 400 `{code: 50006 | 50035, …}`;
 * - every answer carries the bucket's headers: `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
 *   `X-RateLimit-Reset` (epoch seconds), `X-RateLimit-Reset-After` (seconds, with a fraction) and
 *   `X-RateLimit-Bucket`; a webhook's bucket here allows `limit` messages per `windowMs`;
 * - over the limit: 429 with `Retry-After` (seconds) and the body
 *   `{message: "You are being rate limited.", retry_after: <seconds, float>, global: false}`;
 *   a message sent before the wait is over is refused again (and counted in `refusedEarly`).
 * `messages` keeps what was posted (the content and allowed_mentions as sent).
 */
export class DiscordWebhookDouble extends HttpDouble {
  readonly messages: { webhook: string; content: string; allowed_mentions: unknown }[] = [];
  readonly hooks = new Map<string, string>();
  /** Messages per window of each webhook's bucket. */
  limit = 5;
  windowMs = 2000;
  /** Answer the next n posts with 429 whatever the bucket says (a shared or global limit). */
  forced429 = 0;
  forcedRetryAfter = 0.3;
  refusedEarly = 0;
  private readonly buckets = new Map<string, { start: number; used: number; blockedUntil: number }>();

  /** A webhook's address on this double. */
  addWebhook(id = String(100000000000000000n + BigInt(this.hooks.size)), token = `tok_${'x'.repeat(60)}${this.hooks.size}`): string {
    this.hooks.set(id, token);
    return `${this.url}/api/webhooks/${id}/${token}`;
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, body: RequestBody): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const m = /^\/api\/webhooks\/(\d+)\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (req.method !== 'POST' || !m) return sendJson(res, 405, { message: '405: Method Not Allowed', code: 0 });
    const [, id, token] = m;
    if (this.hooks.get(id!) !== token) return sendJson(res, 404, { message: 'Unknown Webhook', code: 10015 });
    const now = Date.now();
    let b = this.buckets.get(id!);
    if (!b || now - b.start >= this.windowMs) this.buckets.set(id!, (b = { start: now, used: 0, blockedUntil: b?.blockedUntil ?? 0 }));
    const resetAt = b.start + this.windowMs;
    const headers = (remaining: number) => ({
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, remaining)),
      'x-ratelimit-reset': (resetAt / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.max(0, resetAt - now) / 1000).toFixed(3),
      'x-ratelimit-bucket': `bucket-${id}`,
    });
    const refuse = (seconds: number) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(Math.ceil(seconds)), ...headers(0) });
      res.end(JSON.stringify({ message: 'You are being rate limited.', retry_after: seconds, global: false }));
    };
    if (now < b.blockedUntil) {
      this.refusedEarly++;
      return refuse((b.blockedUntil - now) / 1000);
    }
    if (this.forced429 > 0) {
      this.forced429--;
      b.blockedUntil = now + this.forcedRetryAfter * 1000;
      return refuse(this.forcedRetryAfter);
    }
    if (b.used >= this.limit) {
      b.blockedUntil = resetAt;
      return refuse((resetAt - now) / 1000);
    }
    const json = (body.json ?? {}) as { content?: unknown; allowed_mentions?: unknown };
    const content = typeof json.content === 'string' ? json.content : '';
    if (!content) return sendJson(res, 400, { message: 'Cannot send an empty message', code: 50006 });
    if (content.length > 2000) return sendJson(res, 400, { message: 'Invalid Form Body', code: 50035 });
    b.used++;
    this.messages.push({ webhook: id!, content, allowed_mentions: json.allowed_mentions });
    const message = { id: String(Date.now()), type: 0, content, channel_id: '1', webhook_id: id };
    const text = JSON.stringify(message);
    const wait = url.searchParams.get('wait') === 'true';
    res.writeHead(wait ? 200 : 204, { ...(wait ? { 'content-type': 'application/json' } : {}), ...headers(this.limit - b.used) });
    res.end(wait ? text : undefined);
  }

  protected crashed(res: http.ServerResponse): void {
    sendJson(res, 500, { message: '500: Internal Server Error', code: 0 });
  }
}
