/**
 * Telegram Login for tests, written from core.telegram.org/widgets/login («Checking
 * authorization»); it shares no code with the site.
 *
 * - `signTelegramLogin(botToken, user)`: the fields Telegram hands the browser after a login —
 *   id, first_name, last_name?, username?, photo_url?, auth_date — with `hash`: the hex
 *   HMAC-SHA256 of the data-check-string (every field but hash, sorted by key, `key=value`
 *   joined by «\n») under the SHA-256 of the bot token.
 * - `FakeTelegramOauth`: oauth.telegram.org's redirect login: GET /auth?bot_id&origin&return_to
 *   (the bot id must be the token's; the origin must be the return address's) sends the browser
 *   back to return_to with `#tgAuthResult=` and the signed fields as base64 JSON.
 */
import { createHash, createHmac } from 'node:crypto';
import type http from 'node:http';
import { close, listen, sendHtml } from '../payments/http-util.ts';

export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
}

export type TelegramLoginData = TelegramUser & { auth_date: number; hash: string };

export function signTelegramLogin(botToken: string, user: TelegramUser, authDate = Math.floor(Date.now() / 1000)): TelegramLoginData {
  const fields: Record<string, string | number> = { ...user, auth_date: authDate };
  const dataCheckString = Object.keys(fields)
    .filter((k) => fields[k] !== undefined)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const key = createHash('sha256').update(botToken).digest();
  const hash = createHmac('sha256', key).update(dataCheckString).digest('hex');
  return { ...user, auth_date: authDate, hash };
}

export class FakeTelegramOauth {
  url = '';
  private server: http.Server | null = null;
  user: TelegramUser = { id: 777000111, first_name: 'Павел', username: 'pavel_tg' };

  constructor(readonly botToken = '7000000001:AAHfakeTelegramBotTokenForTests_0123') {}

  signInAs(user: TelegramUser): this {
    this.user = user;
    return this;
  }

  async start(): Promise<this> {
    const { server, url } = await listen((req, res) => this.handle(req, res));
    this.server = server;
    this.url = url;
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method !== 'GET' || url.pathname !== '/auth') return sendHtml(res, 404, 'Not found');
    const botId = url.searchParams.get('bot_id');
    const origin = url.searchParams.get('origin') ?? '';
    const returnTo = url.searchParams.get('return_to') ?? '';
    if (botId !== this.botToken.split(':')[0]) return sendHtml(res, 400, 'Bot invalid');
    let back: URL;
    try {
      back = new URL(returnTo);
    } catch {
      return sendHtml(res, 400, 'Invalid return_to');
    }
    if (back.origin !== origin) return sendHtml(res, 400, 'Bot domain invalid');
    const data = signTelegramLogin(this.botToken, this.user);
    back.hash = `tgAuthResult=${Buffer.from(JSON.stringify(data)).toString('base64url')}`;
    res.writeHead(302, { location: back.toString() });
    res.end();
  }
}
