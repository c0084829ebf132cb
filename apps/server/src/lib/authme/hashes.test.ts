import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { argon2Hash } from './argon2.ts';
import { bcryptHash, type BcryptVersion, wbb4Hash } from './bcrypt.ts';
import { crazyCrypt1, joomlaHash, md5vbHash, sha256Hash } from './digests.ts';
import {
  AUTHME_ALGORITHMS,
  type AuthMeAlgorithm,
  authMeAlgorithmInfo,
  hashForAuthMe,
  inspectAuthMeHash,
  MAX_PASSWORD_LENGTH,
  parseAuthMeAlgorithm,
  unsupportedAuthMeAlgorithm,
  verifyAuthMe,
} from './hashes.ts';
import { pbkdf2Base64Hash, pbkdf2DjangoHash, pbkdf2Hash } from './pbkdf2.ts';
import { wordpressHash } from './phpass.ts';

/** Made by testing/authme/hash-vectors.py with Python's hashlib, pyca bcrypt, argon2-cffi, passlib and PHP's crypt(). */
interface Fixture {
  vectors: {
    algorithm: string;
    password: string;
    username: string;
    hash: string;
    salt: string | null;
    expect: boolean | 'malformed';
    note: string;
  }[];
  writes: ({ fn: string; password: string; hash: string } & Record<string, string | number>)[];
}
const fixture = JSON.parse(readFileSync(new URL('../../../../../testing/authme/hash-vectors.json', import.meta.url), 'utf8')) as Fixture;

describe('hashes made by independent implementations', () => {
  const byAlgorithm = new Map<string, Fixture['vectors']>();
  for (const vector of fixture.vectors) byAlgorithm.set(vector.algorithm, [...(byAlgorithm.get(vector.algorithm) ?? []), vector]);

  it('covers every algorithm the site knows', () => {
    expect([...byAlgorithm.keys()].sort()).toEqual([...AUTHME_ALGORITHMS].sort());
  });

  for (const [algorithm, vectors] of byAlgorithm) {
    it(`${algorithm}: the right password matches, a wrong one does not`, async () => {
      expect(vectors.some((v) => v.expect === true) && vectors.some((v) => v.expect === false)).toBe(true);
      for (const v of vectors) {
        const verdict = await verifyAuthMe(v.algorithm, v.hash, v.salt, v.password, v.username);
        expect({ verdict, ...v }).toEqual({ verdict: v.expect, ...v });
      }
    });
  }

  it('a hash this library writes for a given salt is the one the other implementation writes', async () => {
    const hex = (text: string | number | undefined) => Buffer.from(String(text), 'hex');
    const made: Record<string, (w: Fixture['writes'][number]) => Promise<string> | string> = {
      sha256: (w) => sha256Hash(w.password, String(w.salt)),
      pbkdf2: (w) => pbkdf2Hash(w.password, String(w.salt), Number(w.rounds)),
      pbkdf2Base64: (w) => pbkdf2Base64Hash(w.password, hex(w.saltHex), Number(w.rounds)),
      pbkdf2Django: (w) => pbkdf2DjangoHash(w.password, String(w.salt), Number(w.rounds)),
      argon2: (w) => argon2Hash(w.password, hex(w.saltHex)),
      bcrypt: (w) => bcryptHash(w.password, w.version as BcryptVersion, Number(w.cost), hex(w.saltHex)),
      wbb4: (w) => wbb4Hash(w.password, hex(w.saltHex)),
      wordpress: (w) => wordpressHash(w.password, hex(w.saltHex)),
      joomla: (w) => joomlaHash(w.password, String(w.salt)),
      md5vb: (w) => md5vbHash(w.password, String(w.salt)),
      crazycrypt1: (w) => crazyCrypt1(w.password, String(w.username)),
    };
    expect(new Set(fixture.writes.map((w) => w.fn))).toEqual(new Set(Object.keys(made)));
    for (const w of fixture.writes) {
      expect({ fn: w.fn, password: w.password, hash: await made[w.fn]!(w) }).toEqual({ fn: w.fn, password: w.password, hash: w.hash });
    }
  });
});

/** The first matching vector the fixture has for an algorithm. */
function sample(algorithm: AuthMeAlgorithm, password = 'password') {
  const v = fixture.vectors.find(
    (x) => x.algorithm === algorithm && x.password === password && x.expect === true && x.username === 'Steve_Builder',
  );
  if (!v) throw new Error(`no vector for ${algorithm}`);
  return v;
}

describe('quirks AuthMe has', () => {
  it('hex digests are compared as AuthMe writes them, lower case: an upper-case row matches nothing', async () => {
    for (const algorithm of ['SHA256', 'MD5', 'SHA1', 'SHA512', 'SALTEDSHA512', 'DOUBLEMD5', 'MD5VB', 'JOOMLA'] as const) {
      const v = sample(algorithm);
      const upper =
        algorithm === 'SHA256' || algorithm === 'MD5VB' ? v.hash.replace(/[0-9a-f]{32,}$/, (h) => h.toUpperCase()) : v.hash.toUpperCase();
      expect(upper).not.toBe(v.hash);
      expect([algorithm, await verifyAuthMe(algorithm, upper, v.salt, v.password, v.username)]).toEqual([algorithm, 'malformed']);
      expect(inspectAuthMeHash(algorithm, upper, v.salt)).toMatchObject({ ok: false, problem: 'malformed' });
    }
  });

  it("PBKDF2's key is read in either case (AuthMe decodes the hex)", async () => {
    const v = sample('PBKDF2');
    const lower = v.hash.replace(/[0-9A-F]+$/, (h) => h.toLowerCase());
    expect(lower).not.toBe(v.hash);
    expect(await verifyAuthMe('PBKDF2', lower, null, 'password', 'x')).toBe(true);
  });

  it('every bcrypt algorithm reads $2a$, $2b$ and $2y$; WBB4 only its own $2a$08$', async () => {
    const a = sample('BCRYPT').hash;
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      const hash = await bcryptHash('password', prefix.slice(1, 3) as BcryptVersion, 4, Buffer.alloc(16, 9));
      for (const algorithm of ['BCRYPT', 'BCRYPT2Y', 'XFBCRYPT', 'PHPBB'] as const) {
        expect([algorithm, prefix, await verifyAuthMe(algorithm, hash, null, 'password', 'x')]).toEqual([algorithm, prefix, true]);
      }
    }
    // The three compute alike, so a relabelled hash still matches: AuthMe recomputes with the stored label.
    expect(await verifyAuthMe('BCRYPT', a.replace('$2a$', '$2y$'), null, 'password', 'x')).toBe(true);
    expect(await verifyAuthMe('WBB4', sample('BCRYPT2Y').hash, null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('BCRYPT', a.replace('$2a$', '$2x$'), null, 'password', 'x')).toBe('malformed');
  });

  it('a bcrypt row whose spare bits are set, or whose cost is beyond the limit, is refused without hashing', async () => {
    const a = sample('BCRYPT').hash;
    // The 22nd salt character carries 2 bits of salt and 4 spare ones, the digest's last 4 and 2:
    // bcrypt writes the spare bits as zero ('/' and 'z' set them), so such a row equals no hash.
    const noisySalt = `${a.slice(0, 28)}/${a.slice(29)}`;
    expect(await verifyAuthMe('BCRYPT', noisySalt, null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('BCRYPT', `${a.slice(0, 59)}z`, null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('BCRYPT', a.replace('$04$', '$17$'), null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('BCRYPT', a.replace('$04$', '$03$'), null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('BCRYPT', a.replace('$04$', '$32$'), null, 'password', 'x')).toBe('malformed');
  });

  it('the salt column: NULL makes a row that keeps its salt there malformed; SMF needs one though it hashes the name', async () => {
    for (const algorithm of [
      'SALTEDSHA512',
      'SALTEDSHA256',
      'DOUBLE_SHA512',
      'SALTED2MD5',
      'IPB3',
      'MYBB',
      'WBB3',
      'PHPFUSION',
      'SMF',
      'IPB4',
    ] as const) {
      const v = sample(algorithm);
      expect(v.salt).not.toBeNull();
      expect([algorithm, await verifyAuthMe(algorithm, v.hash, null, v.password, v.username)]).toEqual([algorithm, 'malformed']);
      expect([algorithm, await verifyAuthMe(algorithm, v.hash, undefined, v.password, v.username)]).toEqual([algorithm, 'malformed']);
      expect([algorithm, await verifyAuthMe(algorithm, v.hash, `${v.salt}0`, v.password, v.username)]).toEqual([
        algorithm,
        algorithm === 'SMF' || algorithm === 'IPB4' ? true : false,
      ]);
      expect(authMeAlgorithmInfo(algorithm).salt).toBe('column');
    }
  });

  it('names are lower-cased as AuthMe does before CRAZYCRYPT1 and SMF see them', async () => {
    const v = sample('CRAZYCRYPT1');
    expect(await verifyAuthMe('CRAZYCRYPT1', v.hash, null, 'password', 'STEVE_BUILDER')).toBe(true);
    expect(await verifyAuthMe('CRAZYCRYPT1', v.hash, null, 'password', 'Alex')).toBe(false);
    expect(await verifyAuthMe('SMF', sample('SMF').hash, 'salt', 'password', 'steve_builder')).toBe(true);
  });

  it('PBKDF2DJANGO and PHPFUSION hash only ASCII: every other letter counts as "?"', async () => {
    const v = fixture.vectors.find((x) => x.algorithm === 'PBKDF2DJANGO' && x.password === 'Пароль' && x.expect === true)!;
    expect(await verifyAuthMe('PBKDF2DJANGO', v.hash, null, 'Ключик', 'x')).toBe(true);
    const f = sample('PHPFUSION', 'Пароль_Игрока-2024');
    expect(await verifyAuthMe('PHPFUSION', f.hash, f.salt, '??????_??????-2024', 'x')).toBe(true);
    expect(await verifyAuthMe('PHPFUSION', f.hash, f.salt, '😀😀😀😀😀😀_??????-2024', 'x')).toBe(true);
  });

  it('ARGON2 reads m, t and p in any order and ignores a label before the first $, as AuthMe does', async () => {
    const v = fixture.vectors.find((x) => x.algorithm === 'ARGON2' && x.note === 'other parameters' && x.expect === true)!;
    const reordered = v.hash.replace('m=4096,t=3,p=2', 'p=2,t=3,m=4096');
    expect(reordered).not.toBe(v.hash);
    expect(await verifyAuthMe('ARGON2', reordered, null, 'password', 'x')).toBe(true);
    expect(await verifyAuthMe('ARGON2', `label${v.hash}`, null, 'password', 'x')).toBe(true);
    expect(await verifyAuthMe('ARGON2', v.hash.replace('v=19', 'v=16'), null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('ARGON2', v.hash.replace('m=4096', 'm=1048576'), null, 'password', 'x')).toBe('malformed');
    expect(await verifyAuthMe('ARGON2', v.hash.replace('t=3', 't=1000'), null, 'password', 'x')).toBe('malformed');
  });
});

describe('rows that are broken or hostile', () => {
  const garbage = [
    '',
    ' ',
    'x'.repeat(5000),
    '$'.repeat(5000),
    "'; DROP TABLE authme; --",
    '<script>alert(1)</script>',
    '$SHA$$',
    '$SHA$Test$$$$',
    '$$$$$',
    'asdfg:hjkl',
    '::test',
    '~#$#~~~#$#~',
    'd41d8cd98f00b204e9800998ecf427e',
    '$2y$7a$da641e404b982ed',
    '$2a$10$' + '!'.repeat(53),
    '$argon2i$v=19$m=65536,t=2,p=1$$',
    '$argon2i$v=19$m=65536,t=2,p=1$!!!!$!!!!',
    '$argon2i$v=19$m=x,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
    '$argon2i$v=19$m=0,t=0,p=0$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
    'pbkdf2_sha256$0$salt$ABCD',
    'pbkdf2_sha256$-5$salt$' + 'AB'.repeat(32),
    'pbkdf2_sha256$99999999999$salt$' + 'AB'.repeat(32),
    'pbkdf2_sha256$10000$salt$XYZ',
    'pbkdf2_sha256$10000$salt$AB',
    'pbkdf2_sha256$10000$salt$%%%',
    'pbkdf2$10000$!!$!!',
    '$P$',
    '$P$Z',
    '$P$Babcdefgh',
    '$P$~abcdefgh' + '.'.repeat(22),
    '$H$zabcdefgh' + '.'.repeat(22),
    '\u0000\uD800\uDFFF\uFFFF',
    'пароль',
  ];

  it('every algorithm answers malformed, never throws, never matches', async () => {
    for (const algorithm of AUTHME_ALGORITHMS) {
      for (const hash of garbage) {
        for (const salt of [null, '', 'salt', 'x'.repeat(5000)]) {
          const verdict = await verifyAuthMe(algorithm, hash, salt, 'password', 'Steve');
          expect([algorithm, hash.slice(0, 40), salt?.slice(0, 10), verdict]).toEqual([
            algorithm,
            hash.slice(0, 40),
            salt?.slice(0, 10),
            'malformed',
          ]);
          const inspected = inspectAuthMeHash(algorithm, hash, salt);
          expect(inspected.ok).toBe(false);
          if (!inspected.ok) expect(inspected.reason).toMatch(/\S/);
        }
      }
    }
  });

  it('a column of any other type is malformed; bytes are read as UTF-8 text', async () => {
    const v = sample('SHA256');
    for (const value of [42, true, {}, [], Symbol('x'), () => v.hash, 10n]) {
      expect(await verifyAuthMe('SHA256', value, null, 'password', 'x')).toBe('malformed');
      expect(await verifyAuthMe('SALTEDSHA512', sample('SALTEDSHA512').hash, value, 'password', 'x')).toBe('malformed');
    }
    expect(await verifyAuthMe('SHA256', Buffer.from(v.hash), null, 'password', 'x')).toBe(true);
    expect(await verifyAuthMe('SHA256', new TextEncoder().encode(v.hash), null, 'password', 'x')).toBe(true);
  });

  it('an unknown algorithm is unsupported, with a reason for the owner', async () => {
    const v = sample('SHA256');
    for (const name of [
      'CUSTOM',
      'TWO_FACTOR',
      'PLAINTEXT',
      'XAUTH',
      'WHIRLPOOL',
      'SHA3',
      '',
      'sha-256',
      'constructor',
      '__proto__',
      'toString',
    ]) {
      expect([name, await verifyAuthMe(name, v.hash, null, 'password', 'x')]).toEqual([name, 'unsupported']);
      expect(inspectAuthMeHash(name, v.hash, null)).toMatchObject({ ok: false, problem: 'unsupported' });
      expect(unsupportedAuthMeAlgorithm(name)).toMatch(/\S/);
      expect(parseAuthMeAlgorithm(name)).toBeNull();
      await expect(hashForAuthMe(name, 'password', 'x')).rejects.toBeInstanceOf(RangeError);
    }
    expect(unsupportedAuthMeAlgorithm('TWO_FACTOR')).toContain('не хеш пароля');
  });

  it("algorithm names are read as AuthMe's config reads them: any case, spaces around", async () => {
    expect(parseAuthMeAlgorithm(' bcrypt2y ')).toBe('BCRYPT2Y');
    expect(parseAuthMeAlgorithm('Sha256')).toBe('SHA256');
    expect(await verifyAuthMe('sha256', sample('SHA256').hash, null, 'password', 'x')).toBe(true);
    expect(unsupportedAuthMeAlgorithm('double_sha512')).toBeNull();
  });

  it('a password longer than any AuthMe allows matches nothing and is not hashed', async () => {
    const long = 'p'.repeat(MAX_PASSWORD_LENGTH + 1);
    const v = sample('WORDPRESS');
    expect(await verifyAuthMe('WORDPRESS', v.hash, null, long, 'x')).toBe(false);
    await expect(hashForAuthMe('SHA256', long, 'x')).rejects.toBeInstanceOf(RangeError);
    const sha = await hashForAuthMe('SHA256', 'p'.repeat(MAX_PASSWORD_LENGTH), 'x');
    expect(await verifyAuthMe('SHA256', sha.hash, sha.salt, 'p'.repeat(MAX_PASSWORD_LENGTH), 'x')).toBe(true);
  });
});

/** The formats AuthMe writes (its docs/hash_algorithms.md gives the lengths). */
const WRITTEN: Record<AuthMeAlgorithm, { hash: RegExp; salt?: RegExp }> = {
  SHA256: { hash: /^\$SHA\$[0-9a-f]{16}\$[0-9a-f]{64}$/ },
  BCRYPT: { hash: /^\$2a\$04\$[./A-Za-z0-9]{53}$/ },
  BCRYPT2Y: { hash: /^\$2y\$10\$[./A-Za-z0-9]{53}$/ },
  XFBCRYPT: { hash: /^\$2a\$10\$[./A-Za-z0-9]{53}$/ },
  PHPBB: { hash: /^\$2y\$10\$[./A-Za-z0-9]{53}$/ },
  IPB4: { hash: /^\$2a\$13\$[./A-Za-z0-9]{53}$/, salt: /^[./A-Za-z0-9]{22}$/ },
  WBB4: { hash: /^\$2a\$08\$[./A-Za-z0-9]{53}$/ },
  PBKDF2: { hash: /^pbkdf2_sha256\$10000\$[0-9a-f]{16}\$[0-9A-F]{128}$/ },
  PBKDF2BASE64: { hash: /^pbkdf2\$10000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/ },
  PBKDF2DJANGO: { hash: /^pbkdf2_sha256\$24000\$[0-9a-f]{12}\$[A-Za-z0-9+/]{43}=$/ },
  ARGON2: { hash: /^\$argon2i\$v=19\$m=65536,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/ },
  SALTEDSHA512: { hash: /^[0-9a-f]{128}$/, salt: /^[0-9a-f]{32}$/ },
  SALTEDSHA256: { hash: /^[0-9a-f]{64}$/, salt: /^[0-9a-f]{32}$/ },
  DOUBLE_SHA512: { hash: /^[0-9a-f]{128}$/, salt: /^[0-9a-f]{32}$/ },
  SALTED2MD5: { hash: /^[0-9a-f]{32}$/, salt: /^[0-9a-f]{8}$/ },
  IPB3: { hash: /^[0-9a-f]{32}$/, salt: /^[0-9a-f]{5}$/ },
  MYBB: { hash: /^[0-9a-f]{32}$/, salt: /^[0-9a-zA-Z]{8}$/ },
  WBB3: { hash: /^[0-9a-f]{40}$/, salt: /^[0-9a-f]{40}$/ },
  PHPFUSION: { hash: /^[0-9a-f]{64}$/, salt: /^[0-9a-f]{12}$/ },
  SMF: { hash: /^[0-9a-f]{40}$/, salt: /^[0-9a-z]{4}$/ },
  WORDPRESS: { hash: /^\$P\$B[./0-9A-Za-z]{30}$/ },
  JOOMLA: { hash: /^[0-9a-f]{32}:[0-9a-f]{32}$/ },
  MD5VB: { hash: /^\$MD5vb\$[0-9a-f]{16}\$[0-9a-f]{32}$/ },
  CRAZYCRYPT1: { hash: /^[0-9a-f]{128}$/ },
  ROYALAUTH: { hash: /^[0-9a-f]{128}$/ },
  CMW: { hash: /^[0-9a-f]{32}$/ },
  SHA1: { hash: /^[0-9a-f]{40}$/ },
  SHA512: { hash: /^[0-9a-f]{128}$/ },
  MD5: { hash: /^[0-9a-f]{32}$/ },
  DOUBLEMD5: { hash: /^[0-9a-f]{32}$/ },
};

describe('hashes the site writes into AuthMe', () => {
  // BCRYPT at cost 4 here (its cost is AuthMe's setting); the other slow ones, whose cost AuthMe
  // fixes (IPB4's bcrypt is cost 13, ARGON2 64 MiB), take one password.
  const fast = { bcryptCost: 4 };
  for (const algorithm of AUTHME_ALGORITHMS) {
    it(`${algorithm}: AuthMe's format, and the same password checks out`, async () => {
      const format = WRITTEN[algorithm];
      const slow = authMeAlgorithmInfo(algorithm).slow && algorithm !== 'BCRYPT';
      const passwords = slow ? ['Пароль_Игрока😀'] : ['password', 'Пароль_Игрока😀', ''];
      for (const password of passwords) {
        const written = await hashForAuthMe(algorithm, password, 'Steve_Builder', fast);
        expect(written.hash).toMatch(format.hash);
        if (format.salt) expect(written.salt).toMatch(format.salt);
        else expect(written.salt).toBeNull();
        expect(authMeAlgorithmInfo(algorithm).salt === 'column').toBe(Boolean(format.salt));
        expect(inspectAuthMeHash(algorithm, written.hash, written.salt)).toEqual({ ok: true });
        expect(await verifyAuthMe(algorithm, written.hash, written.salt, password, 'steve_builder')).toBe(true);
        expect(await verifyAuthMe(algorithm, written.hash, written.salt, `${password}!`, 'Steve_Builder')).toBe(false);
      }
    });
  }

  it('two hashes of one password differ wherever AuthMe salts', async () => {
    // IPB4 draws its salt as BCRYPT does, at cost 13: left out for time.
    for (const algorithm of AUTHME_ALGORITHMS.filter((a) => a !== 'IPB4')) {
      const [a, b] = [await hashForAuthMe(algorithm, 'password', 'Steve', fast), await hashForAuthMe(algorithm, 'password', 'Steve', fast)];
      const salted =
        authMeAlgorithmInfo(algorithm).salt === 'embedded' || (authMeAlgorithmInfo(algorithm).salt === 'column' && algorithm !== 'SMF');
      expect([algorithm, a.hash !== b.hash]).toEqual([algorithm, salted]);
    }
  });

  it("AuthMe's settings: BCRYPT's cost, PBKDF2's rounds (0 means each algorithm's own default), SALTED2MD5's salt length", async () => {
    expect((await hashForAuthMe('BCRYPT', 'p', 'x')).hash).toMatch(/^\$2a\$12\$/);
    expect((await hashForAuthMe('PBKDF2', 'p', 'x', { bcryptCost: undefined, pbkdf2Rounds: undefined })).hash).toMatch(
      /^pbkdf2_sha256\$10000\$/,
    );
    expect((await hashForAuthMe('BCRYPT', 'p', 'x', { bcryptCost: 10 })).hash).toMatch(/^\$2a\$10\$/);
    expect((await hashForAuthMe('BCRYPT2Y', 'p', 'x', { bcryptCost: 4 })).hash).toMatch(/^\$2y\$10\$/);
    expect((await hashForAuthMe('PBKDF2', 'p', 'x', { pbkdf2Rounds: 2000 })).hash).toMatch(/^pbkdf2_sha256\$2000\$/);
    expect((await hashForAuthMe('PBKDF2', 'p', 'x', { pbkdf2Rounds: 0 })).hash).toMatch(/^pbkdf2_sha256\$10000\$/);
    expect((await hashForAuthMe('PBKDF2BASE64', 'p', 'x', { pbkdf2Rounds: 0 })).hash).toMatch(/^pbkdf2\$120000\$/);
    expect((await hashForAuthMe('PBKDF2DJANGO', 'p', 'x', { pbkdf2Rounds: 2000 })).hash).toMatch(/^pbkdf2_sha256\$24000\$/);
    const md5 = await hashForAuthMe('SALTED2MD5', 'p', 'x', { saltedMd5Length: 12 });
    expect(md5.salt).toMatch(/^[0-9a-f]{12}$/);
    const empty = await hashForAuthMe('SALTED2MD5', 'p', 'x', { saltedMd5Length: 0 });
    expect(empty.salt).toBe('');
    expect(await verifyAuthMe('SALTED2MD5', empty.hash, empty.salt, 'p', 'x')).toBe(true);
    for (const settings of [
      { bcryptCost: 3 },
      { bcryptCost: 17 },
      { bcryptCost: 10.5 },
      { pbkdf2Rounds: 3_000_000 },
      { saltedMd5Length: -1 },
    ]) {
      await expect(hashForAuthMe('BCRYPT', 'p', 'x', settings)).rejects.toBeInstanceOf(RangeError);
    }
  });

  it('the slow algorithms are the ones a caller runs in its password-check turn', () => {
    const slow = AUTHME_ALGORITHMS.filter((a) => authMeAlgorithmInfo(a).slow).sort();
    expect(slow).toEqual([
      'ARGON2',
      'BCRYPT',
      'BCRYPT2Y',
      'IPB4',
      'PBKDF2',
      'PBKDF2BASE64',
      'PBKDF2DJANGO',
      'PHPBB',
      'WBB4',
      'WORDPRESS',
      'XFBCRYPT',
    ]);
    const weak = AUTHME_ALGORITHMS.filter((a) => authMeAlgorithmInfo(a).weak).sort();
    expect(weak).toEqual(['CMW', 'CRAZYCRYPT1', 'DOUBLEMD5', 'MD5', 'PHPFUSION', 'ROYALAUTH', 'SHA1', 'SHA512', 'SMF']);
  });
});
