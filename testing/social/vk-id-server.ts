/**
 * A fake of VK ID (id.vk.com, OAuth 2.1) for tests, written from its documentation («VK ID без
 * SDK»: authorize, /oauth2/auth, /oauth2/user_info); it shares no code with the site.
 *
 * What it imitates:
 * - GET /authorize?response_type=code&client_id&redirect_uri&state&code_challenge&
 *   code_challenge_method=s256|S256&scope: the user (set by `signInAs`) consents at once and the
 *   browser goes back to redirect_uri with code, state, device_id, type=code_v2, expires_in=600,
 *   ext_id. A wrong client_id, an unregistered redirect_uri or no S256 challenge is an error page.
 * - POST /oauth2/auth (form: grant_type=authorization_code, code, code_verifier, client_id,
 *   device_id, redirect_uri, state): the code is used once, lives 10 minutes, and must come with
 *   the same client_id, redirect_uri and device_id, and a verifier whose SHA-256 (base64url) is the
 *   challenge. VK ID needs no client secret here (PKCE is the proof). Errors are
 *   `{ error, error_description, state }` with HTTP 400 (invalid_grant, invalid_request, invalid_client).
 * - POST /oauth2/user_info (form: client_id, access_token): `{ user: { user_id, first_name,
 *   last_name, avatar, sex, verified, birthday, email? } }`; a bad token: `{ error: 'invalid_token' }`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { sendJson } from '../payments/http-util.ts';
import { OAuthDouble } from './oauth-double.ts';

export interface VkUser {
  user_id: number;
  first_name: string;
  last_name: string;
  email?: string;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  deviceId: string;
  user: VkUser;
  expiresAt: number;
  used: boolean;
}

export class FakeVkId extends OAuthDouble<VkUser, Code> {
  constructor(
    readonly clientId = '51234567',
    readonly redirectUris: string[] = [],
  ) {
    super({ user_id: 1000001, first_name: 'Иван', last_name: 'Петров' }, 'VK ID');
  }

  /** What the browser is sent to after consenting on `authorizeUrl` (or an Error with VK's error page text). */
  consent(authorizeUrl: string): string {
    const u = new URL(authorizeUrl);
    const q = u.searchParams;
    if (q.get('response_type') !== 'code') throw new Error('response_type must be code');
    if (q.get('client_id') !== this.clientId) throw new Error('invalid client_id');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!this.redirectUris.includes(redirectUri)) throw new Error('redirect_uri is not registered for the app');
    const challenge = q.get('code_challenge') ?? '';
    if ((q.get('code_challenge_method') ?? '').toLowerCase() !== 's256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
      throw new Error('code_challenge (S256) is required');
    const state = q.get('state') ?? '';
    if (state.length < 32) throw new Error('state must be at least 32 characters');
    const code = `vk2.a.${randomBytes(24).toString('base64url')}`;
    const deviceId = randomBytes(16).toString('hex');
    this.codes.set(code, {
      clientId: this.clientId,
      redirectUri,
      challenge,
      deviceId,
      user: this.user,
      expiresAt: Date.now() + 600_000,
      used: false,
    });
    const back = new URL(redirectUri);
    back.search = new URLSearchParams({
      code,
      state,
      device_id: deviceId,
      type: 'code_v2',
      expires_in: '600',
      ext_id: randomBytes(8).toString('hex'),
    }).toString();
    return back.toString();
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'GET' && url.pathname === '/authorize') return this.authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/oauth2/auth') return this.token(req, res, (fields) => this.exchange(fields));
    if (req.method === 'POST' && url.pathname === '/oauth2/user_info') {
      const fields = await this.form(req);
      const user = fields.client_id === this.clientId ? this.tokens.get(fields.access_token ?? '') : undefined;
      if (!user) return sendJson(res, 401, { error: 'invalid_token', error_description: 'Access token is invalid' });
      return sendJson(res, 200, {
        user: {
          user_id: String(user.user_id),
          first_name: user.first_name,
          last_name: user.last_name,
          avatar: '',
          sex: 2,
          verified: false,
          birthday: '',
          ...(user.email && { email: user.email }),
        },
      });
    }
    sendJson(res, 404, { error: 'not_found' });
  }

  private exchange(f: Record<string, string>): { status: number; body: object } {
    const fail = (error: string, error_description: string) => ({ status: 400, body: { error, error_description, state: f.state } });
    if (f.grant_type !== 'authorization_code') return fail('unsupported_grant_type', 'grant_type is not supported');
    for (const k of ['code', 'code_verifier', 'client_id', 'device_id', 'redirect_uri', 'state'])
      if (!f[k]) return fail('invalid_request', `${k} is missing`);
    if (f.client_id !== this.clientId) return fail('invalid_client', 'client_id is invalid');
    const code = this.codes.get(f.code!);
    if (!code || code.used || code.expiresAt < Date.now()) return fail('invalid_grant', 'Code is invalid or expired');
    code.used = true;
    if (code.redirectUri !== f.redirect_uri) return fail('invalid_grant', 'redirect_uri does not match');
    if (code.deviceId !== f.device_id) return fail('invalid_grant', 'device_id is invalid');
    const challenge = createHash('sha256').update(f.code_verifier!).digest('base64url');
    if (challenge !== code.challenge) return fail('invalid_grant', 'code_verifier is invalid');
    const accessToken = `vk2.a.${randomBytes(32).toString('base64url')}`;
    this.tokens.set(accessToken, code.user);
    return {
      status: 200,
      body: {
        refresh_token: `vk2.a.${randomBytes(32).toString('base64url')}`,
        access_token: accessToken,
        id_token: 'eyJ.fake.jwt',
        token_type: 'Bearer',
        expires_in: 3600,
        user_id: code.user.user_id,
        state: f.state,
        scope: 'vkid.personal_info email',
      },
    };
  }
}
