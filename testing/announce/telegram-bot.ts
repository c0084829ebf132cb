import type http from 'node:http';
import { HttpDouble, sendJson, type RequestBody } from '../payments/http-util.ts';

/**
 * The Telegram Bot API's `sendMessage` (`POST /bot<token>/sendMessage`), from the Bot API
 * documentation: answers are `{ok: true, result: Message}` or `{ok: false, error_code,
 * description, parameters?}` with the HTTP status equal to error_code.
 * - an unknown token: 401 "Unauthorized"; an unknown chat: 400 "Bad Request: chat not found";
 *   empty text: 400 "Bad Request: message text is empty"; text over 4096 characters after entity
 *   parsing: 400 "Bad Request: message is too long";
 * - `parse_mode: "HTML"` parses the tags Telegram supports (b, i, u, s, a, code, pre…) and refuses
 *   an unsupported or unclosed tag with 400 "Bad Request: can't parse entities: …"; `&lt;`,
 *   `&gt;`, `&amp;` and `&quot;` are decoded; `parsed` keeps the text a reader sees;
 * - flood control: more than `limit` messages to one chat per `windowMs` → 429 "Too Many
 *   Requests: retry after N" with `parameters.retry_after` (whole seconds); a message before the
 *   wait is over is refused again (`refusedEarly`);
 * - a chat listed in `migrated` answers 400 with `parameters.migrate_to_chat_id`.
 */
export class TelegramBotDouble extends HttpDouble {
  readonly tokens = new Set<string>();
  readonly chats = new Set<string>();
  readonly migrated = new Map<string, number>();
  readonly messages: { chat_id: string; text: string; parse_mode?: string; parsed: string }[] = [];
  limit = 20;
  windowMs = 60_000;
  forced429 = 0;
  forcedRetryAfter = 1;
  refusedEarly = 0;
  private readonly windows = new Map<string, { start: number; used: number; blockedUntil: number }>();

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, body: RequestBody): Promise<void> {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url ?? '/', this.url).pathname);
    const fail = (code: number, description: string, parameters?: object) =>
      sendJson(res, code, { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) });
    if (!m || !this.tokens.has(decodeURIComponent(m[1]!))) return fail(401, 'Unauthorized');
    if (m[2] !== 'sendMessage') return fail(404, 'Not Found');
    const p = (body.json as Record<string, unknown> | undefined) ?? body.form;
    const chat = String(p.chat_id ?? '');
    if (this.migrated.has(chat))
      return fail(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: this.migrated.get(chat) });
    if (!this.chats.has(chat)) return fail(400, 'Bad Request: chat not found');
    const now = Date.now();
    let w = this.windows.get(chat);
    if (!w || now - w.start >= this.windowMs) this.windows.set(chat, (w = { start: now, used: 0, blockedUntil: w?.blockedUntil ?? 0 }));
    const tooMany = (seconds: number) => fail(429, `Too Many Requests: retry after ${seconds}`, { retry_after: seconds });
    if (now < w.blockedUntil) {
      this.refusedEarly++;
      return tooMany(Math.ceil((w.blockedUntil - now) / 1000));
    }
    if (this.forced429 > 0) {
      this.forced429--;
      w.blockedUntil = now + this.forcedRetryAfter * 1000;
      return tooMany(this.forcedRetryAfter);
    }
    if (w.used >= this.limit) {
      const seconds = Math.ceil((w.start + this.windowMs - now) / 1000);
      w.blockedUntil = now + seconds * 1000;
      return tooMany(seconds);
    }
    const text = typeof p.text === 'string' ? p.text : '';
    if (!text.trim()) return fail(400, 'Bad Request: message text is empty');
    let parsed = text;
    if (p.parse_mode === 'HTML') {
      const result = parseHtml(text);
      if (typeof result !== 'string') return fail(400, `Bad Request: can't parse entities: ${result.error}`);
      parsed = result;
    }
    if (parsed.length > 4096) return fail(400, 'Bad Request: message is too long');
    w.used++;
    this.messages.push({ chat_id: chat, text, parse_mode: typeof p.parse_mode === 'string' ? p.parse_mode : undefined, parsed });
    sendJson(res, 200, {
      ok: true,
      result: { message_id: this.messages.length, date: Math.floor(now / 1000), chat: { id: chat }, text: parsed },
    });
  }

  protected crashed(res: http.ServerResponse): void {
    sendJson(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
  }
}

const TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'tg-spoiler',
  'blockquote',
  'span',
  'tg-emoji',
]);

/** Telegram's HTML mode: the reader's text, or why it does not parse. */
function parseHtml(html: string): string | { error: string } {
  const open: string[] = [];
  let out = '';
  const re = /<(\/?)([a-zA-Z-]+)[^>]*>|&(lt|gt|amp|quot);|&[^;\s]*;?|[<>]/g;
  let last = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    out += html.slice(last, m.index);
    last = re.lastIndex;
    if (m[2]) {
      const tag = m[2].toLowerCase();
      if (!TAGS.has(tag)) return { error: `unsupported start tag "${tag}" at byte offset ${m.index}` };
      if (m[1]) {
        if (open.pop() !== tag) return { error: `can't find end tag corresponding to start tag "${tag}"` };
      } else open.push(tag);
    } else if (m[3]) out += { lt: '<', gt: '>', amp: '&', quot: '"' }[m[3]]!;
    else if (m[0] === '<' || m[0] === '>') return { error: `unexpected character "${m[0]}" at byte offset ${m.index}` };
    else return { error: `unsupported entity "${m[0]}"` };
  }
  if (open.length > 0) return { error: `can't find end tag corresponding to start tag "${open.at(-1)}"` };
  return out + html.slice(last);
}
