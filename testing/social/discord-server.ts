/**
 * A fake of Discord's OAuth2 for tests, written from its documentation (discord.com/developers/
 * docs/topics/oauth2, «Authorization Code Grant», and /users/@me); it shares no code with the site.
 *
 * What it imitates:
 * - GET /oauth2/authorize?response_type=code&client_id&scope&state&redirect_uri[&code_challenge&
 *   code_challenge_method=S256]: the user (set by `signInAs`) authorizes at once; the browser goes
 *   back to redirect_uri with code and state. An unknown client or an unregistered redirect_uri is
 *   an error page; a scope without `identify` too.
 * - POST /api/oauth2/token (form: grant_type=authorization_code, code, redirect_uri, client_id,
 *   client_secret — or HTTP Basic — and code_verifier when a challenge was sent): the client
 *   secret must be right (401 `{ error: 'invalid_client' }`); the code is used once, lives 10
 *   minutes and must come with the same redirect_uri and a verifier matching the challenge (400
 *   `{ error: 'invalid_grant', error_description: 'Invalid "code" in request.' }`).
 *   Answers `{ token_type: 'Bearer', access_token, expires_in, refresh_token, scope }`.
 * - GET /api/users/@me with `Authorization: Bearer …`: the user object (id a snowflake string,
 *   username, global_name, discriminator '0', avatar); a bad token: 401 `{ message: '401: Unauthorized', code: 0 }`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { sendJson } from '../payments/http-util.ts';
import { OAuthDouble } from './oauth-double.ts';

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
}

interface Code {
  redirectUri: string;
  challenge: string | null;
  user: DiscordUser;
  expiresAt: number;
  used: boolean;
}

export class FakeDiscord extends OAuthDouble<DiscordUser, Code> {
  constructor(
    readonly clientId = '1234567890123456789',
    readonly clientSecret = 'discord-client-secret-0123456789',
    readonly redirectUris: string[] = [],
  ) {
    super({ id: '80351110224678912', username: 'nelly', global_name: 'Nelly' }, 'Discord');
  }

  /** Where the browser goes after authorizing on `authorizeUrl` (or an Error with the page's text). */
  consent(authorizeUrl: string): string {
    const q = new URL(authorizeUrl).searchParams;
    if (q.get('client_id') !== this.clientId) throw new Error('Unknown application');
    if (q.get('response_type') !== 'code') throw new Error('Invalid response_type');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!this.redirectUris.includes(redirectUri)) throw new Error('Invalid OAuth2 redirect_uri');
    if (!(q.get('scope') ?? '').split(/[ +]/).includes('identify')) throw new Error('Invalid scope');
    const challenge = q.get('code_challenge');
    if (challenge && q.get('code_challenge_method') !== 'S256') throw new Error('Invalid code_challenge_method');
    const code = randomBytes(15).toString('base64url');
    this.codes.set(code, { redirectUri, challenge, user: this.user, expiresAt: Date.now() + 600_000, used: false });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return back.toString();
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'GET' && url.pathname === '/oauth2/authorize') return this.authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/api/oauth2/token')
      return this.token(req, res, (fields) => this.exchange(fields, req.headers.authorization));
    if (req.method === 'GET' && url.pathname === '/api/users/@me') {
      const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      const user = m ? this.tokens.get(m[1]!) : undefined;
      if (!user) return sendJson(res, 401, { message: '401: Unauthorized', code: 0 });
      return sendJson(res, 200, {
        id: user.id,
        username: user.username,
        discriminator: '0',
        global_name: user.global_name,
        avatar: null,
        mfa_enabled: false,
        locale: 'ru',
        flags: 0,
        premium_type: 0,
        public_flags: 0,
      });
    }
    sendJson(res, 404, { message: '404: Not Found', code: 0 });
  }

  private exchange(f: Record<string, string>, authorization: string | undefined): { status: number; body: object } {
    let clientId = f.client_id;
    let secret = f.client_secret;
    const basic = /^Basic (.+)$/.exec(authorization ?? '');
    if (basic) [clientId, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    if (clientId !== this.clientId || secret !== this.clientSecret) return { status: 401, body: { error: 'invalid_client' } };
    if (f.grant_type !== 'authorization_code') return { status: 400, body: { error: 'unsupported_grant_type' } };
    const invalid = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "code" in request.' } };
    const code = this.codes.get(f.code ?? '');
    if (!code || code.used || code.expiresAt < Date.now()) return invalid;
    code.used = true;
    if (code.redirectUri !== f.redirect_uri)
      return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' } };
    if (code.challenge !== null) {
      const got = f.code_verifier ? createHash('sha256').update(f.code_verifier).digest('base64url') : '';
      if (got !== code.challenge)
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "code_verifier" in request.' } };
    }
    const accessToken = randomBytes(20).toString('base64url');
    this.tokens.set(accessToken, code.user);
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        access_token: accessToken,
        expires_in: 604800,
        refresh_token: randomBytes(20).toString('base64url'),
        scope: 'identify',
      },
    };
  }
}
