import type http from 'node:http';
import { HttpDouble, sendJson, type RequestBody } from '../payments/http-util.ts';

/**
 * The VK API's `wall.post` and `messages.send` (`POST /method/<name>`, form fields, `v` and
 * `access_token`), from VK's API documentation (methods; error codes): answers are
 * `{response: …}` or `{error: {error_code, error_msg, request_params}}`, always HTTP 200.
 * - a token not in `tokens`: error 5 "User authorization failed: invalid access_token (4).";
 *   no `v`: error 8 "Invalid request: v (version) is required";
 * - wall.post with `owner_id=-<group>` and `from_group=1` by the group's token → `{post_id}`;
 *   another group's wall: 15 "Access denied"; empty message: 100 "One of the parameters specified
 *   was missing or invalid: message is empty or invalid";
 * - messages.send needs `random_id`: a second message with a random_id this sender used is not
 *   sent again (the first one's id comes back); a peer the group may not write to: 901 "Can't send
 *   messages for users without permission";
 * - rate limits: more than `perSecond` calls of one token in a second → 6 "Too many requests per
 *   second"; `flood` set → 9 "Flood control"; `quotaLeft` 0 → 29 "Rate limit reached".
 */
export class VkApiDouble extends HttpDouble {
  /** token → the group it belongs to. */
  readonly tokens = new Map<string, string>();
  /** Peers each group may write to. */
  readonly peers = new Set<string>();
  readonly posts: { group: string; message: string }[] = [];
  readonly sent: { group: string; peer: string; message: string; random_id: string }[] = [];
  perSecond = 3;
  flood = false;
  quotaLeft = Infinity;
  /** Answer the next n calls with this error code (6, 9 or 29) before the usual checks. */
  forcedErrors: number[] = [];
  private readonly calls = new Map<string, number[]>();
  private readonly randomIds = new Map<string, number>();

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, body: RequestBody): Promise<void> {
    const method = /^\/method\/([\w.]+)$/.exec(new URL(req.url ?? '/', this.url).pathname)?.[1];
    const p = { ...Object.fromEntries(new URL(req.url ?? '/', this.url).searchParams), ...body.form };
    const error = (code: number, msg: string) =>
      sendJson(res, 200, { error: { error_code: code, error_msg: msg, request_params: [{ key: 'method', value: method ?? '' }] } });
    if (!p.v) return error(8, 'Invalid request: v (version) is required');
    const group = this.tokens.get(p.access_token ?? '');
    if (!group) return error(5, 'User authorization failed: invalid access_token (4).');
    const forced = this.forcedErrors.shift();
    if (forced === 6) return error(6, 'Too many requests per second');
    if (forced === 9 || this.flood) return error(9, 'Flood control');
    if (forced === 29 || this.quotaLeft <= 0) return error(29, 'Rate limit reached');
    const now = Date.now();
    const recent = (this.calls.get(p.access_token!) ?? []).filter((t) => now - t < 1000);
    if (recent.length >= this.perSecond) return error(6, 'Too many requests per second');
    this.calls.set(p.access_token!, [...recent, now]);
    this.quotaLeft--;
    const message = p.message ?? '';
    if (method === 'wall.post') {
      if (p.owner_id !== `-${group}`) return error(15, 'Access denied');
      if (!message.trim()) return error(100, 'One of the parameters specified was missing or invalid: message is empty or invalid');
      this.posts.push({ group, message });
      return sendJson(res, 200, { response: { post_id: this.posts.length } });
    }
    if (method === 'messages.send') {
      if (!p.random_id) return error(100, 'One of the parameters specified was missing or invalid: random_id is a required parameter');
      if (!this.peers.has(p.peer_id ?? '')) return error(901, "Can't send messages for users without permission");
      const key = `${group}:${p.random_id}`;
      const before = this.randomIds.get(key);
      if (before !== undefined) return sendJson(res, 200, { response: before });
      this.sent.push({ group, peer: p.peer_id!, message, random_id: p.random_id });
      this.randomIds.set(key, this.sent.length);
      return sendJson(res, 200, { response: this.sent.length });
    }
    return error(3, 'Unknown method passed');
  }

  protected crashed(res: http.ServerResponse): void {
    sendJson(res, 500, { error: { error_code: 10, error_msg: 'Internal server error' } });
  }
}
