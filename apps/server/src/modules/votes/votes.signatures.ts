import { createHash } from 'node:crypto';
import type { CustomVoteScheme, VoteKind } from '@kubik/contract';
import { sameSecret } from '../../lib/same-secret.ts';

/*
 * What each top sends when a player voted, and how it is checked (docs/votes.md):
 * - TopCraft: POST form `username`, `timestamp` (Unix seconds), `signature` = hex sha1(username + timestamp + secret);
 * - MinecraftRating: the same fields and signature, plus `ip` (the voter's address, not signed);
 * - McTOP: `nickname`, `token` = hex md5(nickname + secret); no time, so a replay is stopped by the cooldown;
 * - MonitoringMinecraft: POST JSON {nickname, server_id, timestamp (ISO 8601), test?} with
 *   `Authorization: Bearer <secret>`;
 * - custom: the owner names the fields and the hash over a template of {username}, {timestamp}, {secret}.
 * Every comparison is in constant time; nothing else is computed before it.
 */

export interface VoteSiteSecret {
  kind: VoteKind;
  secret: string;
  custom: CustomVoteScheme | null;
}

export interface VoteClaim {
  username: string;
  /** The top's time of the vote (epoch ms), or null when it sends none. */
  at: number | null;
  /** The time as the top sent it, for telling a replay from a new vote. */
  rawTime: string | null;
  /** The voter's address when the top reports it (MinecraftRating). */
  voterIp: string | null;
  /** The top's «check the address» call: answered, not rewarded. */
  test: boolean;
}

export type Verdict = { ok: true; claim: VoteClaim } | { ok: false; outcome: 'bad_request' | 'bad_signature'; username: string | null };

const NAME = /^[\p{L}\p{N}_.-]{1,64}$/u;

function hex(alg: 'sha1' | 'sha256' | 'md5', text: string): string {
  return createHash(alg).update(text, 'utf8').digest('hex');
}

/** Constant time (lib/same-secret.ts). */
export const sameText = sameSecret;

/** Unix seconds, epoch ms or ISO 8601 → epoch ms; null when it is none of them. */
export function parseTime(raw: string): number | null {
  if (/^\d{1,13}$/.test(raw)) {
    const n = Number(raw);
    return n >= 1e12 ? n : n * 1000;
  }
  if (raw.length > 40 || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) return null;
  const t = Date.parse(raw);
  return Number.isFinite(t) ? t : null;
}

/** Reads and checks a callback: `fields` are its form, query or JSON values as strings; `authorization` the header. */
export function verifyVote(site: VoteSiteSecret, fields: Record<string, string>, authorization: string | undefined): Verdict {
  const field = (name: string) => {
    const v = fields[name];
    return v === undefined ? null : v.trim();
  };
  const fail = (outcome: 'bad_request' | 'bad_signature', username: string | null): Verdict => ({
    ok: false,
    outcome,
    username: username && username.length <= 64 ? username : null,
  });
  const claim = (username: string, rawTime: string | null, voterIp: string | null = null, test = false): Verdict => {
    const at = rawTime === null ? null : parseTime(rawTime);
    if (rawTime !== null && at === null) return fail('bad_request', username);
    return { ok: true, claim: { username, at, rawTime, voterIp, test } };
  };
  switch (site.kind) {
    case 'topcraft':
    case 'minecraftrating': {
      const username = field('username');
      const timestamp = field('timestamp');
      const signature = field('signature');
      if (!username || !timestamp || !signature || !NAME.test(username) || timestamp.length > 40) return fail('bad_request', username);
      if (!sameText(signature.toLowerCase(), hex('sha1', username + timestamp + site.secret))) return fail('bad_signature', username);
      const ip = site.kind === 'minecraftrating' ? field('ip') : null;
      return claim(username, timestamp, ip && ip.length <= 64 ? ip : null);
    }
    case 'mctop': {
      const username = field('nickname');
      const token = field('token');
      if (!username || !token || !NAME.test(username)) return fail('bad_request', username);
      if (!sameText(token.toLowerCase(), hex('md5', username + site.secret))) return fail('bad_signature', username);
      return claim(username, null);
    }
    case 'monitoringminecraft': {
      const username = field('nickname');
      const timestamp = field('timestamp');
      const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : null;
      if (!bearer) return fail('bad_signature', username);
      if (!sameText(bearer, site.secret)) return fail('bad_signature', username);
      const test = field('test') === 'true' || field('test') === '1';
      if (!username || !NAME.test(username)) return test ? claim('test', null, null, true) : fail('bad_request', username);
      if (!timestamp || timestamp.length > 40) return fail('bad_request', username);
      return claim(username, timestamp, null, test);
    }
    case 'custom': {
      const scheme = site.custom;
      if (!scheme) return fail('bad_request', null);
      const username = field(scheme.username_field);
      const timestamp = scheme.timestamp_field ? field(scheme.timestamp_field) : null;
      const signature = field(scheme.signature_field);
      if (!username || !signature || !NAME.test(username) || (scheme.timestamp_field && (!timestamp || timestamp.length > 40)))
        return fail('bad_request', username);
      const values: Record<string, string> = { username, timestamp: timestamp ?? '', secret: site.secret };
      // One pass: a value is never read as a placeholder itself.
      const text = scheme.template.replace(/\{(username|timestamp|secret)\}/g, (_, name: string) => values[name]!);
      if (!sameText(signature.toLowerCase(), hex(scheme.hash, text))) return fail('bad_signature', username);
      return claim(username, timestamp);
    }
  }
}

/** What the top expects to read when its callback was taken (or needs no repeat). */
export function okText(kind: VoteKind): string {
  return kind === 'topcraft' || kind === 'minecraftrating' ? 'ok' : 'OK';
}
