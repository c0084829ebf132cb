import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { limitText, type RateLimiter } from '../lib/rate-limit.ts';

/**
 * A route's onRequest hook: a client whose address key is refused already (the limiter's blocks
 * in memory, docs/decisions/290-refusals-in-memory.md) gets its 429 before the body is read,
 * validated or the database touched, written as a ready string (no error handler, no schema
 * serializer: a refusal costs next to nothing, also from many addresses at once). `keys` is the
 * limiter key the route's service counts the address under (e.g. `login:ip:` + addressKey(ip));
 * `body` shapes the answer (the game protocols have their own).
 */
export function refuseWhileBlocked(
  limiter: RateLimiter,
  keys: (request: FastifyRequest) => string,
  body: (retryAfterSec: number) => object = (sec) => ({ error: limitText(sec * 1000), code: 'rate_limited', retry_after: sec }),
  /** 429; a protocol with its own rule for refused rates says otherwise (Yggdrasil: 403). */
  status = 429,
): onRequestHookHandler {
  return (request, reply, done) => {
    const left = limiter.blockedFor(keys(request));
    if (left <= 0) return done();
    const sec = Math.max(1, Math.ceil(left / 1000));
    void reply
      .code(status)
      .header('retry-after', String(sec))
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(body(sec)));
  };
}
