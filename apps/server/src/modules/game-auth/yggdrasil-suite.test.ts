import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blank, fill, multipart, skinForm, testSkin, toPng } from '../../../../../testing/skin-images.ts';
import { dbKinds, loginAs, seedUser } from '../../test/test-app.ts';
import { listeningSite, seedSigningKey } from '../../test/game-auth.ts';

/**
 * The checks of authlib-injector's Yggdrasil integration suite (yggdrasil-mock, test/src/test/
 * yggdrasil-test.js and yggdrasil-verify.js), written anew for an account with exactly one
 * character. Its fixture maps so: user1 (no characters) → `lonely`, whose one character has no
 * textures; user2's character1 (Steve model, skin and cape) → `character1`; user3's two
 * characters → two accounts, `character2` (Alex model, skin only) and `character3` (cape only).
 * The numbers are the suite's tests as docs/game-login-suite.md lists them; what cannot apply to
 * one character per account is listed there too.
 */

const { PNG } = createRequire(import.meta.url)('pngjs') as {
  PNG: { sync: { read(b: Buffer): { width: number; height: number; data: Buffer } } };
};

type Site = Awaited<ReturnType<typeof listeningSite>>;
type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

const PASSWORD = 'correct horse';
const WRONG_PASSWORD = 'incorrectPassword-_-';
const NOBODY = 'notExists@example.com';
const NO_CHARACTER = { id: '992960dfc7a54afca041760004499434', name: 'characterNotExists' };
const BAD_TOKEN = 'fa0e97770dec465aa3c5db8d70162857';
const agent = { name: 'Minecraft', version: 1 };

/** Unsigned UUID of RFC 4122 versions 1–5, as the suite requires of every id. */
const isUuid = (s: unknown) => typeof s === 'string' && /^[0-9a-f]{12}[1-5][0-9a-f]{3}[89ab][0-9a-f]{15}$/.test(s);
const keysOf = (o: unknown) => Object.keys(o as object).sort();

/** The suite's texture hash, written here from its description (not our pixelHash): width, height, then A,R,G,B column by column. */
function suiteTextureHash(img: { width: number; height: number; data: Buffer }): string {
  const bytes: number[] = [];
  const be32 = (n: number) => bytes.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
  be32(img.width);
  be32(img.height);
  for (let x = 0; x < img.width; x++) {
    for (let y = 0; y < img.height; y++) {
      const at = (y * img.width + x) * 4;
      const alpha = img.data[at + 3]!;
      bytes.push(alpha, ...(alpha === 0 ? [0, 0, 0] : [img.data[at]!, img.data[at + 1]!, img.data[at + 2]!]));
    }
  }
  return createHash('sha256').update(Buffer.from(bytes)).digest('hex');
}

function setup(kind: 'sqlite' | 'pg', rateLimited: boolean) {
  const state = { site: null as unknown as Site, root: '', key: null as unknown as KeyObject, skinDomains: [] as string[] };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(state.root + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text === '' ? null : JSON.parse(text) };
  };
  const start = async () => {
    state.site = await listeningSite(kind, { rateLimits: { enabled: rateLimited } });
    await seedSigningKey(state.site);
    for (const name of ['lonely', 'character1', 'character2', 'character3']) await seedUser(state.site, name, { password: PASSWORD });
    state.root = `${state.site.base}/api/yggdrasil`;
    const meta = (await call('GET', '/')).body as Json;
    state.key = createPublicKey(meta.signaturePublickey as string);
    state.skinDomains = meta.skinDomains as string[];
  };
  return { state, call, start };
}

/** An error answer: the status, and a body with exactly `error` and `errorMessage` (so no `cause`). */
function expectException(a: Answer, status: number, error: string): void {
  expect(a.status, a.text).toBe(status);
  expect(keysOf(a.body)).toEqual(['error', 'errorMessage']);
  expect((a.body as Json).error).toBe(error);
  expect(typeof (a.body as Json).errorMessage).toBe('string');
}

describe.each(dbKinds)("authlib-injector's integration checks on %s", (kind) => {
  const { state, call, start } = setup(kind, false);
  let adminToken = '';

  const simple = (p: unknown) => {
    expect(keysOf(p)).toEqual(['id', 'name']);
    expect(isUuid((p as Json).id), String((p as Json).id)).toBe(true);
    expect(typeof (p as Json).name).toBe('string');
    return p as { id: string; name: string };
  };
  const properties = (list: unknown, signed: boolean) => {
    expect(Array.isArray(list)).toBe(true);
    const names = new Set<string>();
    for (const p of list as Json[]) {
      expect(keysOf(p)).toEqual(signed ? ['name', 'signature', 'value'] : ['name', 'value']);
      expect(names.has(p.name as string), `duplicate ${String(p.name)}`).toBe(false);
      names.add(p.name as string);
      if (signed)
        expect(verify('sha1', Buffer.from(p.value as string, 'utf8'), state.key, Buffer.from(p.signature as string, 'base64'))).toBe(true);
    }
  };
  const userObject = (u: unknown) => {
    expect(keysOf(u)).toEqual(['id', 'properties']);
    expect(isUuid((u as Json).id)).toBe(true);
    properties((u as Json).properties, false);
  };
  const complete = (p: unknown, signed: boolean) => {
    expect(keysOf(p)).toEqual(['id', 'name', 'properties']);
    expect(isUuid((p as Json).id)).toBe(true);
    properties((p as Json).properties, signed);
    return p as { id: string; name: string; properties: { name: string; value: string }[] };
  };
  /** The textures payload, checked as the suite does: SKIN only url and metadata.model (slim/default), CAPE only url, nothing else. */
  const textures = (p: { id: string; name: string; properties: { name: string; value: string }[] }) => {
    const prop = p.properties.find((x) => x.name === 'textures');
    expect(prop, 'textures property').toBeDefined();
    const payload = JSON.parse(Buffer.from(prop!.value, 'base64').toString('utf8')) as Json;
    expect(typeof payload.timestamp).toBe('number');
    expect(payload.profileId).toBe(p.id);
    expect(payload.profileName).toBe(p.name);
    expect(typeof payload.textures).toBe('object');
    const out: { skin: string | null; cape: string | null; slim: boolean | null } = { skin: null, cape: null, slim: null };
    for (const [type, t] of Object.entries(payload.textures as Record<string, Json>)) {
      expect(typeof t.url).toBe('string');
      if (type === 'SKIN') {
        out.skin = t.url as string;
        out.slim = false;
        expect(keysOf(t).filter((k) => k !== 'url' && k !== 'metadata')).toEqual([]);
        if (t.metadata !== undefined) {
          expect(keysOf(t.metadata).filter((k) => k !== 'model')).toEqual([]);
          const model = (t.metadata as Json).model;
          if (model !== undefined) {
            expect(['slim', 'default']).toContain(model);
            out.slim = model === 'slim';
          }
        }
      } else if (type === 'CAPE') {
        out.cape = t.url as string;
        expect(keysOf(t)).toEqual(['url']);
      } else throw new Error(`unknown texture type ${type}`);
    }
    return out;
  };
  const authenticate = async (username: string, extra: Json = {}) => {
    const a = await call('POST', '/authserver/authenticate', { username, password: PASSWORD, agent, ...extra });
    expect(a.status, a.text).toBe(200);
    const r = a.body as Json;
    expect(typeof r.accessToken).toBe('string');
    expect(typeof r.clientToken).toBe('string');
    const available = (r.availableProfiles as unknown[]).map(simple);
    if (r.selectedProfile !== undefined) {
      const selected = simple(r.selectedProfile);
      expect(available.some((p) => p.id === selected.id && p.name === selected.name)).toBe(true);
    }
    if (r.user !== undefined) userObject(r.user);
    return r as {
      accessToken: string;
      clientToken: string;
      availableProfiles: { id: string; name: string }[];
      selectedProfile?: { id: string; name: string };
      user?: unknown;
    };
  };
  const refresh = async (last: { accessToken: string; clientToken: string }, extra: Json = {}) => {
    const a = await call('POST', '/authserver/refresh', { accessToken: last.accessToken, ...extra });
    expect(a.status, a.text).toBe(200);
    const r = a.body as Json;
    expect(typeof r.accessToken).toBe('string');
    expect(r.accessToken).not.toBe(last.accessToken);
    expect(r.clientToken).toBe(last.clientToken);
    if (r.selectedProfile !== undefined) simple(r.selectedProfile);
    if (r.user !== undefined) userObject(r.user);
    return r as { accessToken: string; clientToken: string; selectedProfile?: { id: string; name: string }; user?: unknown };
  };
  const validate = (accessToken: string, clientToken?: string) => call('POST', '/authserver/validate', { accessToken, clientToken });
  const names = async (list: string[]) => {
    const a = await call('POST', '/api/profiles/minecraft', list);
    expect(a.status).toBe(200);
    const found = new Map<string, string>();
    for (const p of a.body as unknown[]) {
      const { id, name } = simple(p);
      expect(found.has(name)).toBe(false);
      expect([...found.values()]).not.toContain(id);
      found.set(name, id);
    }
    return found;
  };
  let uuids = new Map<string, string>();

  beforeAll(async () => {
    await start();
    await seedUser(state.site, 'Owner', { admin: true });
    adminToken = await loginAs(state.site, 'Owner');
    const asAdmin = { authorization: `Bearer ${adminToken}` };
    const upload = async (name: string, skin: Buffer | null, cape: Buffer | null) => {
      const token = await loginAs(state.site, name, PASSWORD);
      if (skin) {
        const form = skinForm(skin);
        const res = await fetch(`${state.site.base}/api/user/skin`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, ...form.headers },
          body: form.payload,
        });
        expect(res.status).toBe(200);
      }
      if (cape) {
        const form = multipart([
          { name: 'title', data: `Плащ ${name}` },
          { name: 'cape', filename: 'c.png', type: 'image/png', data: cape },
        ]);
        const up = await fetch(`${state.site.base}/api/admin/capes`, {
          method: 'POST',
          headers: { ...asAdmin, ...form.headers },
          body: form.payload,
        });
        expect(up.status, await up.clone().text()).toBe(200);
        const id = ((await up.json()) as { id: number }).id;
        const json = { 'content-type': 'application/json' };
        expect(
          (
            await fetch(`${state.site.base}/api/admin/capes/${id}/grants`, {
              method: 'POST',
              headers: { ...asAdmin, ...json },
              body: JSON.stringify({ username: name }),
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await fetch(`${state.site.base}/api/user/cape`, {
              method: 'PUT',
              headers: { authorization: `Bearer ${token}`, ...json },
              body: JSON.stringify({ cape_id: id }),
            })
          ).status,
        ).toBe(200);
      }
    };
    await upload('character1', await toPng(testSkin()), await toPng(fill(blank(64, 32), 0, 0, 22, 17, [200, 30, 30, 255])));
    await upload('character2', await toPng(testSkin({ slim: true })), null);
    // A 22×17 cape, padded by the site to 64×32.
    await upload('character3', null, await toPng(fill(blank(22, 17), 0, 0, 22, 17, [20, 90, 200, 255])));
    uuids = await names(['character1', 'character2', 'character3', 'lonely']);
  });
  afterAll(async () => {
    await state.site?.close();
  });

  describe('extension api', () => {
    it('1–3: the metadata has exactly meta, skinDomains and a 4096-bit key; meta names the server; domains are clean', async () => {
      const a = await call('GET', '/');
      expect(a.status).toBe(200);
      const body = a.body as Json;
      expect(keysOf(body)).toEqual(['meta', 'signaturePublickey', 'skinDomains']);
      expect(body.signaturePublickey as string).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
      expect(state.key.asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(4096);
      expect(keysOf(body.meta)).toEqual(expect.arrayContaining(['implementationName', 'implementationVersion', 'serverName']));
      expect(state.skinDomains.length).toBeGreaterThan(0);
      for (const d of state.skinDomains) expect(d).toMatch(/^\S+$/);
    });
  });

  describe('authenticate', () => {
    it('4, 5: an unknown user or a wrong password is ForbiddenOperationException', async () => {
      expectException(
        await call('POST', '/authserver/authenticate', { username: NOBODY, password: '123456', agent }),
        403,
        'ForbiddenOperationException',
      );
      expectException(
        await call('POST', '/authserver/authenticate', { username: 'lonely@example.com', password: WRONG_PASSWORD, agent }),
        403,
        'ForbiddenOperationException',
      );
    });

    it('7: without requestUser there is no user; the account’s one character is offered', async () => {
      const r = await authenticate('lonely@example.com');
      expect(r).not.toHaveProperty('user');
      expect(r.availableProfiles).toEqual([{ id: uuids.get('lonely'), name: 'lonely' }]);
    });

    it('8: any clientToken comes back as sent, even one that is no UUID', async () => {
      const r = await authenticate('lonely@example.com', { clientToken: '0d275e50-f5d1-4b7f-8d39-d66a3f904549X' });
      expect(r.clientToken).toBe('0d275e50-f5d1-4b7f-8d39-d66a3f904549X');
      expect(r).not.toHaveProperty('user');
    });

    it('9, 10: with requestUser the user comes too; the one character is selected', async () => {
      const r = await authenticate('character1@example.com', { requestUser: true });
      expect(r.user).toBeDefined();
      expect(r.availableProfiles.map((p) => p.name)).toEqual(['character1']);
      expect(r.selectedProfile?.name).toBe('character1');
    });

    it('12: logging in with the character name selects it', async () => {
      const r = await authenticate('character1');
      expect(r.availableProfiles.map((p) => p.name)).toEqual(['character1']);
      expect(r.selectedProfile?.name).toBe('character1');
    });
  });

  describe('refresh', () => {
    it('15, 16: a wrong accessToken or clientToken is ForbiddenOperationException', async () => {
      expectException(await call('POST', '/authserver/refresh', { accessToken: BAD_TOKEN }), 403, 'ForbiddenOperationException');
      const r = await authenticate('lonely@example.com', { requestUser: true });
      expectException(
        await call('POST', '/authserver/refresh', { accessToken: r.accessToken, clientToken: BAD_TOKEN }),
        403,
        'ForbiddenOperationException',
      );
    });

    it('17, 18: with the right clientToken: a new token, the same clientToken, no user unless asked', async () => {
      const r = await authenticate('lonely@example.com', { requestUser: true });
      const next = await refresh(r, { clientToken: r.clientToken });
      expect(next).not.toHaveProperty('user');
      expect(next.selectedProfile).toEqual({ id: uuids.get('lonely'), name: 'lonely' });
      const withUser = await refresh(await authenticate('lonely@example.com', { requestUser: true }), { requestUser: true });
      expect(withUser.user).toBeDefined();
    });

    it('19, 20: the old token cannot be refreshed again; the new one can, again and again', async () => {
      const r = await authenticate('lonely@example.com');
      const next = await refresh(r);
      expectException(await call('POST', '/authserver/refresh', { accessToken: r.accessToken }), 403, 'ForbiddenOperationException');
      await refresh(await refresh(next));
    });

    it('21: the selected character stays selected, without user', async () => {
      const r = await authenticate('character1@example.com', { requestUser: true });
      const next = await refresh(r);
      expect(next).not.toHaveProperty('user');
      expect(next.selectedProfile).toEqual(r.selectedProfile);
    });

    it('25, 27: selecting with an already bound token is IllegalArgumentException, and the old token still refreshes', async () => {
      const r = await authenticate('character2@example.com');
      for (const selectedProfile of [NO_CHARACTER, r.selectedProfile, { id: uuids.get('character1'), name: 'character1' }])
        expectException(
          await call('POST', '/authserver/refresh', { accessToken: r.accessToken, selectedProfile }),
          400,
          'IllegalArgumentException',
        );
      expect((await refresh(r)).selectedProfile?.name).toBe('character2');
    });
  });

  describe('validate', () => {
    it('28–31: a wrong token or clientToken is 403; a good one 204, with or without its clientToken', async () => {
      expectException(await validate(BAD_TOKEN), 403, 'ForbiddenOperationException');
      const r = await authenticate('lonely@example.com');
      expectException(await validate(r.accessToken, BAD_TOKEN), 403, 'ForbiddenOperationException');
      expect((await validate(r.accessToken, r.clientToken)).status).toBe(204);
      const plain = await validate(r.accessToken);
      expect([plain.status, plain.text]).toEqual([204, '']);
    });
  });

  describe('invalidate', () => {
    it('32, 33: always 204; a wrong clientToken is ignored and the token ends anyway', async () => {
      expect((await call('POST', '/authserver/invalidate', { accessToken: BAD_TOKEN })).status).toBe(204);
      const r = await authenticate('lonely@example.com');
      expect((await call('POST', '/authserver/invalidate', { accessToken: r.accessToken, clientToken: BAD_TOKEN })).status).toBe(204);
      expectException(await validate(r.accessToken), 403, 'ForbiddenOperationException');
    });

    it('34–36: the token is then neither valid nor refreshable', async () => {
      for (const clientToken of [true, false]) {
        const r = await authenticate('lonely@example.com');
        expect(
          (
            await call('POST', '/authserver/invalidate', {
              accessToken: r.accessToken,
              ...(clientToken ? { clientToken: r.clientToken } : {}),
            })
          ).status,
        ).toBe(204);
        expectException(await validate(r.accessToken), 403, 'ForbiddenOperationException');
        expectException(await call('POST', '/authserver/refresh', { accessToken: r.accessToken }), 403, 'ForbiddenOperationException');
      }
    });

    it('37: other tokens of the account stay valid', async () => {
      const [a, b] = [await authenticate('lonely@example.com'), await authenticate('lonely@example.com')];
      await call('POST', '/authserver/invalidate', { accessToken: a.accessToken });
      expectException(await call('POST', '/authserver/refresh', { accessToken: a.accessToken }), 403, 'ForbiddenOperationException');
      expect((await validate(b.accessToken)).status).toBe(204);
    });
  });

  describe('signout', () => {
    it('38, 39: an unknown user or a wrong password is ForbiddenOperationException', async () => {
      expectException(
        await call('POST', '/authserver/signout', { username: NOBODY, password: '123456' }),
        403,
        'ForbiddenOperationException',
      );
      expectException(
        await call('POST', '/authserver/signout', { username: 'lonely@example.com', password: WRONG_PASSWORD }),
        403,
        'ForbiddenOperationException',
      );
    });

    it('40–42: every token of the account is neither valid nor refreshable afterwards', async () => {
      const [a, b] = [await authenticate('lonely@example.com'), await authenticate('lonely@example.com')];
      const out = await call('POST', '/authserver/signout', { username: 'lonely@example.com', password: PASSWORD });
      expect([out.status, out.text]).toEqual([204, '']);
      for (const t of [a, b]) {
        expectException(await validate(t.accessToken), 403, 'ForbiddenOperationException');
        expectException(await call('POST', '/authserver/refresh', { accessToken: t.accessToken }), 403, 'ForbiddenOperationException');
      }
    });
  });

  describe('query character names', () => {
    it('44–49: empty, unknown, known, mixed, duplicated, two characters', async () => {
      expect([...(await names([]))]).toEqual([]);
      expect([...(await names([NO_CHARACTER.name]))]).toEqual([]);
      expect([...(await names(['character1'])).keys()]).toEqual(['character1']);
      expect([...(await names([NO_CHARACTER.name, 'character1'])).keys()]).toEqual(['character1']);
      expect([...(await names(['character1', 'character1'])).keys()]).toEqual(['character1']);
      expect([...(await names(['character1', 'character2'])).keys()].sort()).toEqual(['character1', 'character2']);
    });
  });

  describe('session', () => {
    const profile = async (name: string, query = '') => {
      const a = await call('GET', `/sessionserver/session/minecraft/profile/${uuids.get(name)}${query}`);
      expect(a.status, a.text).toBe(200);
      const p = complete(a.body, query === '?unsigned=false');
      expect([p.id, p.name]).toEqual([uuids.get(name), name]);
      return p;
    };
    const looks = {
      character1: (p: Parameters<typeof textures>[0]) =>
        expect(textures(p)).toMatchObject({ skin: expect.any(String), cape: expect.any(String), slim: false }),
      character2: (p: Parameters<typeof textures>[0]) =>
        expect(textures(p)).toMatchObject({ skin: expect.any(String), cape: null, slim: true }),
      character3: (p: Parameters<typeof textures>[0]) => expect(textures(p)).toEqual({ skin: null, cape: expect.any(String), slim: null }),
    };

    it('50: an unknown UUID is 204 with no body', async () => {
      const a = await call('GET', `/sessionserver/session/minecraft/profile/${NO_CHARACTER.id}`);
      expect([a.status, a.text]).toEqual([204, '']);
    });

    it('51–55: unsigned unless ?unsigned=false; each character’s textures', async () => {
      looks.character1(await profile('character1', '?unsigned=true'));
      looks.character1(await profile('character1', '?unsigned=false'));
      looks.character1(await profile('character1'));
      looks.character2(await profile('character2'));
      looks.character3(await profile('character3'));
    });

    const join = (accessToken: string, selectedProfile: string) =>
      call('POST', '/sessionserver/session/minecraft/join', { accessToken, selectedProfile, serverId: randomBytes(16).toString('hex') });

    it('56–59, 62–64: a bad token, an unknown character or another account’s character cannot join', async () => {
      expectException(await join(BAD_TOKEN, uuids.get('character1')!), 403, 'ForbiddenOperationException');
      const lonely = await authenticate('lonely@example.com');
      expectException(await join(lonely.accessToken, NO_CHARACTER.id), 403, 'ForbiddenOperationException');
      expectException(await join(lonely.accessToken, uuids.get('character1')!), 403, 'ForbiddenOperationException');
      const one = await authenticate('character1@example.com');
      expectException(await join(one.accessToken, uuids.get('character2')!), 403, 'ForbiddenOperationException');
      const two = await authenticate('character2@example.com');
      expectException(await join(two.accessToken, uuids.get('character1')!), 403, 'ForbiddenOperationException');
    });

    /** Joins as the account's character; returns the serverId. */
    const joined = async (name: string) => {
      const r = await authenticate(`${name}@example.com`);
      const serverId = randomBytes(16).toString('hex');
      const a = await call('POST', '/sessionserver/session/minecraft/join', {
        accessToken: r.accessToken,
        selectedProfile: uuids.get(name),
        serverId,
      });
      expect([a.status, a.text]).toEqual([204, '']);
      return serverId;
    };
    const hasJoined = (username: string, serverId: string) =>
      call('GET', `/sessionserver/session/minecraft/hasJoined?username=${username}&serverId=${serverId}`);

    it('65–67: each character joins with its own token', async () => {
      for (const name of ['character1', 'character2', 'character3']) await joined(name);
    });

    it('68–70: hasJoined is 204 for another name, another serverId, or no join', async () => {
      const serverId = await joined('character1');
      expect((await hasJoined('character2', serverId)).status).toBe(204);
      await joined('character1');
      expect((await hasJoined('character1', randomBytes(16).toString('hex'))).status).toBe(204);
      const none = await hasJoined('character1', randomBytes(16).toString('hex'));
      expect([none.status, none.text]).toEqual([204, '']);
    });

    it('71–73: after a join, the complete profile with verified signatures and its textures', async () => {
      for (const name of ['character1', 'character2', 'character3'] as const) {
        const a = await hasJoined(name, await joined(name));
        expect(a.status, a.text).toBe(200);
        const p = complete(a.body, true);
        expect(p.name).toBe(name);
        looks[name](p);
      }
    });

    describe('textures', () => {
      /** Downloads as the suite does: host in skinDomains (plain suffix), 200, Content-Type exactly image/png, URL ending in the hash. */
      const download = async (url: string) => {
        const u = new URL(url);
        expect(
          state.skinDomains.some((d) => u.hostname.endsWith(d)),
          u.hostname,
        ).toBe(true);
        const res = await fetch(u);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/png');
        const image = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
        const hash = suiteTextureHash(image);
        expect(u.pathname.endsWith(hash) || u.pathname.endsWith(`${hash}.png`), `${u.pathname} should end with ${hash}`).toBe(true);
        return image;
      };
      const isSkin = (img: { width: number; height: number }) =>
        expect(img.width === img.height || img.width === 2 * img.height).toBe(true);
      const isCape = (img: { width: number; height: number }) => expect(img.width).toBe(2 * img.height);

      it('74–77: skins and capes of the three characters', async () => {
        const t1 = textures(await profile('character1'));
        const t2 = textures(await profile('character2'));
        const t3 = textures(await profile('character3'));
        isSkin(await download(t1.skin!));
        isCape(await download(t1.cape!));
        isSkin(await download(t2.skin!));
        isCape(await download(t3.cape!));
      });
    });
  });
});

describe.each(dbKinds)("authlib-injector's rate-limit checks on %s", (kind) => {
  const { state, call, start } = setup(kind, true);
  beforeAll(start);
  afterAll(async () => {
    await state.site?.close();
  });
  // The suite's config says how long to wait between one account's password checks (its default
  // 300 ms); the site allows one per second, so the suite runs with rateLimits.login = 1000.
  const wait = () => new Promise((r) => setTimeout(r, 1100));

  it('6: a second login right after a good one is ForbiddenOperationException; after the interval it works', async () => {
    const login = () => call('POST', '/authserver/authenticate', { username: 'lonely@example.com', password: PASSWORD, agent });
    expect((await login()).status).toBe(200);
    expectException(await login(), 403, 'ForbiddenOperationException');
    await wait();
    expect((await login()).status).toBe(200);
  });

  it('43: so is a second signout right after one', async () => {
    await wait();
    const signout = () => call('POST', '/authserver/signout', { username: 'lonely@example.com', password: PASSWORD });
    expect((await signout()).status).toBe(204);
    expectException(await signout(), 403, 'ForbiddenOperationException');
    await wait();
    expect((await signout()).status).toBe(204);
  });
});
