/**
 * The stranger's side of `npm run bench:flood` and `npm run bench:launch`, in a process of its own
 * as it would be on a machine of its own: LOOPS loops of refused requests against the site, until
 * SIGTERM; then it prints how the site answered them (outcome → count) as one JSON line. Run by
 * login-flood.ts and launch.ts:
 *   node --import tsx bench/flood-client.ts <site url> <launcher|reset> <loops>
 *   node --import tsx bench/flood-client.ts <site url> login <loops> <a.b.c> <forwarded|source> <name prefix> <first>-<last>
 * `login`: web logins to existing accounts (<name prefix><n>, n picked at random in first…last)
 * with wrong passwords, all from one /24 (a.b.c.1 … a.b.c.254 in turn); `forwarded` puts the
 * address in X-Forwarded-For, `source` sends from it (a loopback address, behind nginx).
 * Measuring the owner's logins in the flood's own process timed the client's event loop, busy
 * with 32 loops of answers, as much as the site.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { LoadClient, outcomeOf, type AddressMode } from './http-client.ts';

const [url, kind, loopsArg, network, mode, prefix, range] = process.argv.slice(2);
const LOOPS = Number(loopsArg ?? 32);

let seq = 0;
/** A new IPv4 address each call, each in a network of its own (the site counts some limits per /24). */
const freshIp = () => {
  const n = ++seq;
  return `10.${n & 255}.${(n >> 8) & 255}.${((n >> 16) & 255) + 1}`;
};

/** The next address of the one /24, round the 254 hosts. */
let host = 0;
const sameNetworkIp = () => `${network}.${(host++ % 254) + 1}`;

const [first, last] = (range ?? '').split('-').map(Number) as [number, number];
const client = kind === 'login' && url ? new LoadClient(url, (mode ?? 'forwarded') as AddressMode) : null;

const requests: Record<string, () => Promise<string>> = {
  // A launcher logging in (authlib-injector's Yggdrasil authenticate) with a made-up name.
  launcher: async () => {
    const res = await fetch(`${url}/api/yggdrasil/authserver/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({
        agent: { name: 'Minecraft', version: 1 },
        username: `Nobody_${randomBytes(4).toString('hex')}`,
        password: randomUUID(),
        requestUser: true,
      }),
    });
    await res.arrayBuffer();
    return String(res.status);
  },
  // A password reset with a made-up token.
  reset: async () => {
    const res = await fetch(`${url}/api/user/reset-password/${randomBytes(32).toString('base64url')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ new_password: 'brand-new-pass' }),
    });
    await res.arrayBuffer();
    return String(res.status);
  },
  // Guessing the passwords of players who exist (each guess makes the site check a real hash).
  login: async () => {
    const n = first + Math.floor(Math.random() * (last - first + 1));
    const answer = await client!
      .request('POST', '/api/user/login', {
        from: sameNetworkIp(),
        body: { username: `${prefix}${n}`, password: `guess-${randomBytes(6).toString('hex')}` },
      })
      .catch((err: Error) => err);
    return outcomeOf(answer);
  },
};
const send = requests[kind ?? ''];
const loginArgsOk = kind !== 'login' || (/^\d+\.\d+\.\d+$/.test(network ?? '') && prefix && Number.isInteger(first) && last >= first);
if (!url || !send || !loginArgsOk)
  throw new Error(
    'usage: flood-client.ts <site url> <launcher|reset> <loops> | <site url> login <loops> <a.b.c> <forwarded|source> <name prefix> <first>-<last>',
  );

let stop = false;
const outcomes: Record<string, number> = {};
process.once('SIGTERM', () => (stop = true));
// Started with stdin a pipe (launch.ts; node makes it a socket pair): its end means the bench is
// gone, and nobody will read the figures.
const stdin = fstatSync(0);
if (stdin.isFIFO() || stdin.isSocket()) process.stdin.on('end', () => process.exit(1)).resume();
await Promise.all(
  Array.from({ length: LOOPS }, async () => {
    while (!stop) {
      const outcome = await send();
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  }),
);
client?.close();
process.stdin.removeAllListeners('end').destroy();
console.log(JSON.stringify(outcomes));
