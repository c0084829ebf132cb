import { ipList } from './ip-list.ts';

/**
 * TRUST_PROXY (README, docs/operations.md): which forwarding proxies the site believes.
 * - `false`: none; the client is the socket's peer, forwarding headers are ignored.
 * - a number n (`on`/`true` mean 1): the last n hops are proxies of ours, e.g. nginx on the same
 *   machine is 1 hop.
 * - a list of addresses/CIDRs: the proxies' own addresses.
 * Either way the client is the first address, counting from the right of `X-Forwarded-For` (the
 * socket's peer first), that is not a trusted proxy: a client cannot choose its address by
 * sending an `X-Forwarded-For` of its own, since a proxy that appends puts the client's real
 * address to the right of it. (Fastify's `true` would take the leftmost entry, which the client
 * writes: `true` therefore means one hop here.)
 */
export type ProxyTrust = false | number | string[];

export const MAX_PROXY_HOPS = 10;

/** Parses TRUST_PROXY; throws with a Russian reason for a value it does not take. */
export function parseProxyTrust(value: string | undefined): ProxyTrust {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'off' || v === 'false' || v === '0') return false;
  if (v === 'on' || v === 'true') return 1;
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (n > MAX_PROXY_HOPS) throw new Error(`не больше ${MAX_PROXY_HOPS} прокси подряд`);
    return n;
  }
  const entries = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  ipList(entries); // throws on an entry that is not an address or a range
  return entries;
}

/** Normalises a configured value (tests may pass `true`) into what the checks below take. */
function normal(trust: ProxyTrust | boolean): ProxyTrust {
  return trust === true ? 1 : trust;
}

/**
 * Fastify's `trustProxy` as a function of (address, hop), hop 0 being the socket's peer: Fastify
 * walks from the right while it trusts, and the first address it does not trust is the client.
 */
export function fastifyTrustProxy(trust: ProxyTrust | boolean): ((address: string, hop: number) => boolean) | false {
  const t = normal(trust);
  if (t === false || t === 0) return false;
  if (typeof t === 'number') return (_address, hop) => hop < t;
  const trusted = ipList(t);
  return (address) => trusted(address);
}

/** Whether the socket's peer is a trusted proxy, whose headers (X-Request-Id) the site keeps. */
export function peerIsTrustedProxy(trust: ProxyTrust | boolean): (peer: string | undefined) => boolean {
  const t = normal(trust);
  if (t === false || t === 0) return () => false;
  if (typeof t === 'number') return () => true;
  const trusted = ipList(t);
  return (peer) => !!peer && trusted(peer);
}
