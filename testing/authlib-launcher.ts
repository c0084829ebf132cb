import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * A launcher with authlib-injector, as strict as the real ones (written from authlib-injector's
 * launcher specification, its own metadata and signature checks, and HMCL's response checks):
 * - discovery follows `X-Authlib-Injector-API-Location` once, resolved against the final URL;
 * - the metadata's key must be exactly a PEM "PUBLIC KEY" (only line breaks removed, strict
 *   base64, RSA SubjectPublicKeyInfo) — anything else is "Bad signature public key";
 * - an answer with a non-empty `error` is a failure whatever its status (HMCL, node-yggdrasil);
 * - the clientToken must come back byte for byte; profiles have exactly {id, name};
 * - textures: every property signature must verify (SHA1withRSA over the value's UTF-8 bytes)
 *   and every texture host must pass the skinDomains whitelist (host only, ".x" suffix rules,
 *   the built-in rules and blacklist).
 */

export class YggdrasilFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly errorMessage: string | undefined,
  ) {
    super(`${status} ${error}: ${errorMessage ?? ''}`);
  }
  /** HMCL's classification of ForbiddenOperationException texts. */
  get kind(): 'credentials' | 'token' | 'other' {
    if (this.error === 'ForbiddenOperationException' && /Invalid credentials|Invalid username or password/.test(this.errorMessage ?? ''))
      return 'credentials';
    if (this.error === 'ForbiddenOperationException' && /Invalid token/.test(this.errorMessage ?? '')) return 'token';
    return 'other';
  }
}

export interface Metadata {
  meta: Record<string, unknown>;
  skinDomains: string[];
  signaturePublickey: string;
}

export interface Profile {
  id: string;
  name: string;
}

export interface Session {
  accessToken: string;
  clientToken: string;
  selectedProfile: Profile;
}

const BUILTIN_WHITELIST = ['.minecraft.net', '.mojang.com'];
const BUILTIN_BLACKLIST = ['education.minecraft.net', 'bugs.mojang.com', 'feedback.minecraft.net'];

/** authlib-injector's domain rule (SkinWhitelistTransformUnit). */
export function domainAllowed(host: string, rule: string): boolean {
  if (rule === '') return false;
  if (rule.startsWith('.')) return host.endsWith(rule);
  return host === rule;
}

export function textureHostAllowed(url: string, skinDomains: string[]): boolean {
  const host = new URL(url).hostname;
  if (BUILTIN_BLACKLIST.some((r) => domainAllowed(host, r))) return false;
  return [...BUILTIN_WHITELIST, ...skinDomains].some((r) => domainAllowed(host, r));
}

/** authlib-injector's KeyUtils: strip line breaks only, exact wrapper, strict base64, X.509 RSA. */
export function parsePublicKey(pem: string): KeyObject {
  const flat = pem.replace(/[\r\n]/g, '');
  const head = '-----BEGIN PUBLIC KEY-----';
  const foot = '-----END PUBLIC KEY-----';
  if (!flat.startsWith(head) || !flat.endsWith(foot)) throw new Error('Bad signature public key');
  const b64 = flat.slice(head.length, flat.length - foot.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new Error('Bad signature public key');
  const key = createPublicKey({ key: Buffer.from(b64, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'rsa') throw new Error('Bad signature public key');
  return key;
}

const isUnsignedUuid = (s: unknown) => typeof s === 'string' && /^[0-9a-f]{32}$/.test(s);

function exactKeys(obj: unknown, keys: string[], what: string): void {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error(`${what}: not an object`);
  const got = Object.keys(obj).sort();
  if (JSON.stringify(got) !== JSON.stringify([...keys].sort()))
    throw new Error(`${what}: keys ${got.join(',')} instead of ${keys.join(',')}`);
}

function checkSimpleProfile(p: unknown, what: string): Profile {
  exactKeys(p, ['id', 'name'], what);
  const profile = p as Profile;
  if (!isUnsignedUuid(profile.id) || typeof profile.name !== 'string') throw new Error(`${what}: bad id or name`);
  return profile;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export class AuthlibLauncher {
  apiRoot = '';
  metadata!: Metadata;
  publicKey!: KeyObject;

  constructor(private readonly userAgent = 'authlib-launcher-double/1.0') {}

  /** GET the address a player typed, follow the API location once, read and check the metadata. */
  async discover(address: string): Promise<void> {
    const url = /^https?:\/\//.test(address) ? address : `https://${address}`;
    const page = await fetch(url, { redirect: 'follow', headers: { 'user-agent': this.userAgent } });
    let root = page.url;
    const ali = page.headers.get('x-authlib-injector-api-location');
    let body = await page.text();
    if (ali) {
      const target = new URL(ali, page.url).toString();
      if (target.replace(/\/$/, '') !== page.url.replace(/\/$/, '')) {
        const meta = await fetch(target, { headers: { 'user-agent': this.userAgent } });
        if (meta.status !== 200) throw new Error(`metadata: ${meta.status}`);
        root = meta.url;
        body = await meta.text();
      }
    }
    this.apiRoot = root.endsWith('/') ? root : `${root}/`;
    const metadata = JSON.parse(body) as Metadata;
    if (!metadata || typeof metadata !== 'object' || typeof metadata.meta !== 'object' || metadata.meta === null)
      throw new Error('metadata: no meta');
    if (
      !Array.isArray(metadata.skinDomains) ||
      metadata.skinDomains.length === 0 ||
      !metadata.skinDomains.every((d) => typeof d === 'string' && d !== '' && !/\s/.test(d))
    ) {
      throw new Error('metadata: bad skinDomains');
    }
    this.publicKey = parsePublicKey(metadata.signaturePublickey);
    this.metadata = metadata;
  }

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(this.apiRoot + path, {
      method,
      redirect: 'manual',
      headers: { 'user-agent': this.userAgent, ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = null;
    if (text !== '') json = JSON.parse(text);
    if (
      json &&
      typeof json === 'object' &&
      !Array.isArray(json) &&
      typeof (json as { error?: unknown }).error === 'string' &&
      (json as { error: string }).error.trim() !== ''
    ) {
      const e = json as { error: string; errorMessage?: string };
      throw new YggdrasilFailure(res.status, e.error, e.errorMessage);
    }
    if (res.status >= 400) throw new Error(`HTTP ${res.status} without an error body: ${text}`);
    return { status: res.status, headers: res.headers, text, json };
  }

  async authenticate(
    username: string,
    password: string,
    clientToken: string,
    requestUser = true,
  ): Promise<Session & { availableProfiles: Profile[]; user?: unknown }> {
    const a = await this.call('POST', 'authserver/authenticate', {
      agent: { name: 'Minecraft', version: 1 },
      username,
      password,
      clientToken,
      requestUser,
    });
    const r = a.json as {
      accessToken: string;
      clientToken: string;
      availableProfiles: unknown[];
      selectedProfile?: unknown;
      user?: unknown;
    };
    if (typeof r.accessToken !== 'string' || r.accessToken === '') throw new Error('authenticate: no accessToken');
    if (r.clientToken !== clientToken) throw new Error('authenticate: clientToken changed');
    if (!Array.isArray(r.availableProfiles)) throw new Error('authenticate: no availableProfiles');
    const profiles = r.availableProfiles.map((p, i) => checkSimpleProfile(p, `availableProfiles[${i}]`));
    if (!r.selectedProfile) throw new Error('authenticate: no selectedProfile (a profile would have to be chosen)');
    const selected = checkSimpleProfile(r.selectedProfile, 'selectedProfile');
    if (!profiles.some((p) => p.id === selected.id)) throw new Error('authenticate: selectedProfile not among availableProfiles');
    if (requestUser) {
      exactKeys(r.user, ['id', 'properties'], 'user');
      if (!Array.isArray((r.user as { properties: unknown }).properties)) throw new Error('user.properties');
    } else if ('user' in r) throw new Error('authenticate: user without requestUser');
    return { accessToken: r.accessToken, clientToken: r.clientToken, selectedProfile: selected, availableProfiles: profiles, user: r.user };
  }

  async refresh(session: Session, extra: Record<string, unknown> = {}): Promise<Session> {
    const a = await this.call('POST', 'authserver/refresh', {
      accessToken: session.accessToken,
      clientToken: session.clientToken,
      requestUser: true,
      ...extra,
    });
    const r = a.json as { accessToken: string; clientToken: string; selectedProfile: unknown };
    if (r.clientToken !== session.clientToken) throw new Error('refresh: clientToken changed');
    if (r.accessToken === session.accessToken) throw new Error('refresh: same accessToken');
    const selected = checkSimpleProfile(r.selectedProfile, 'selectedProfile');
    if (selected.id !== session.selectedProfile.id) throw new Error('refresh: another profile');
    return { accessToken: r.accessToken, clientToken: r.clientToken, selectedProfile: selected };
  }

  async validate(session: Pick<Session, 'accessToken'> & { clientToken?: string }): Promise<void> {
    const a = await this.call('POST', 'authserver/validate', session);
    if (a.status !== 204 || a.text !== '') throw new Error(`validate: ${a.status} ${a.text}`);
  }

  /** The game client's session join (what the vanilla client does on the server's encryption request). */
  async join(session: Session, serverId: string): Promise<void> {
    const a = await this.call('POST', 'sessionserver/session/minecraft/join', {
      accessToken: session.accessToken,
      selectedProfile: session.selectedProfile.id,
      serverId,
    });
    if (a.status !== 204 || a.text !== '') throw new Error(`join: ${a.status} ${a.text}`);
  }

  /** The game server's check (authlib-injector's YggdrasilClient): a complete profile, or null on 204. */
  async hasJoined(username: string, serverId: string, ip?: string): Promise<CompleteProfile | null> {
    const q = new URLSearchParams({ username, serverId, ...(ip ? { ip } : {}) });
    const a = await this.call('GET', `sessionserver/session/minecraft/hasJoined?${q}`);
    if (a.status === 204) {
      if (a.text !== '') throw new Error('204 with a body');
      return null;
    }
    return this.checkComplete(a.json, true);
  }

  async profile(uuid: string, unsigned?: 'true' | 'false'): Promise<CompleteProfile | null> {
    const a = await this.call('GET', `sessionserver/session/minecraft/profile/${uuid}${unsigned ? `?unsigned=${unsigned}` : ''}`);
    if (a.status === 204) return null;
    return this.checkComplete(a.json, unsigned === 'false');
  }

  /** The game's checks on a complete profile and its textures. */
  checkComplete(json: unknown, signed: boolean): CompleteProfile {
    exactKeys(json, ['id', 'name', 'properties'], 'profile');
    const p = json as CompleteProfile;
    if (!isUnsignedUuid(p.id) || !Array.isArray(p.properties)) throw new Error('profile: bad id or properties');
    const names = new Set<string>();
    for (const prop of p.properties) {
      exactKeys(prop, signed ? ['name', 'value', 'signature'] : ['name', 'value'], `property ${prop.name}`);
      if (names.has(prop.name)) throw new Error('duplicate property');
      names.add(prop.name);
      if (signed && !verify('sha1', Buffer.from(prop.value, 'utf8'), this.publicKey, Buffer.from(prop.signature!, 'base64'))) {
        throw new Error(`property ${prop.name}: signature does not verify`);
      }
    }
    const textures = p.properties.find((x) => x.name === 'textures');
    if (textures) {
      const payload = JSON.parse(Buffer.from(textures.value, 'base64').toString('utf8')) as TexturesPayload;
      if (payload.profileId !== p.id || payload.profileName !== p.name || typeof payload.timestamp !== 'number')
        throw new Error('textures: payload does not match the profile');
      for (const [type, t] of Object.entries(payload.textures)) {
        if (type !== 'SKIN' && type !== 'CAPE') throw new Error(`textures: ${type}`);
        if (!textureHostAllowed(t.url, this.metadata.skinDomains))
          throw new Error('Textures payload has been tampered with (non-whitelisted domain)');
        if (type === 'CAPE' && t.metadata) throw new Error('cape metadata');
        if (t.metadata && !(t.metadata.model === 'slim' || t.metadata.model === 'default')) throw new Error('bad model');
      }
      p.textures = payload;
    }
    return p;
  }
}

export interface TexturesPayload {
  timestamp: number;
  profileId: string;
  profileName: string;
  textures: Record<string, { url: string; metadata?: { model?: string } }>;
}

export interface CompleteProfile {
  id: string;
  name: string;
  properties: { name: string; value: string; signature?: string }[];
  /** Decoded by checkComplete. */
  textures?: TexturesPayload;
}

/**
 * A 4096-bit key for tests, so that every test database does not spend seconds creating one
 * (the site creates its own on first use; that path has a test of its own).
 */
export const TEST_SIGNING_KEY = readFileSync(new URL('./yggdrasil-test-key.pem', import.meta.url), 'utf8');
