/**
 * The stranger's side of `npm run bench:flood`, in a process of its own as it would be on a
 * machine of its own: LOOPS loops of refused requests against the site, until SIGTERM; then it
 * prints how the site answered them (status → count) as one JSON line. Run by login-flood.ts:
 *   node --import tsx bench/flood-client.ts <site url> <launcher|reset> <loops>
 * Measuring the owner's logins in the flood's own process timed the client's event loop, busy
 * with 32 loops of answers, as much as the site.
 */
import { randomBytes, randomUUID } from 'node:crypto';

const [url, kind, loopsArg] = process.argv.slice(2);
const LOOPS = Number(loopsArg ?? 32);

let seq = 0;
/** A new IPv4 address each call, each in a network of its own (the site counts some limits per /24). */
const freshIp = () => {
  const n = ++seq;
  return `10.${n & 255}.${(n >> 8) & 255}.${((n >> 16) & 255) + 1}`;
};

const requests: Record<string, () => Promise<Response>> = {
  // A launcher logging in (authlib-injector's Yggdrasil authenticate) with a made-up name.
  launcher: () =>
    fetch(`${url}/api/yggdrasil/authserver/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({
        agent: { name: 'Minecraft', version: 1 },
        username: `Nobody_${randomBytes(4).toString('hex')}`,
        password: randomUUID(),
        requestUser: true,
      }),
    }),
  // A password reset with a made-up token.
  reset: () =>
    fetch(`${url}/api/user/reset-password/${randomBytes(32).toString('base64url')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ new_password: 'brand-new-pass' }),
    }),
};
const send = requests[kind ?? ''];
if (!url || !send) throw new Error('usage: flood-client.ts <site url> <launcher|reset> <loops>');

let stop = false;
const statuses: Record<number, number> = {};
process.once('SIGTERM', () => (stop = true));
await Promise.all(
  Array.from({ length: LOOPS }, async () => {
    while (!stop) {
      const res = await send();
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }),
);
console.log(JSON.stringify(statuses));
