import type http from 'node:http';
import { close, listen, readBody, sendHtml, sendJson } from '../payments/http-util.ts';

/**
 * What the OAuth 2.0 doubles of VK ID and Discord have in common (each file says what its
 * provider does): a loopback server, the user who consents next, one-time codes, access tokens,
 * and every token exchange as sent with its status. The protocol details stay in each double.
 */
export abstract class OAuthDouble<User, Code> {
  url = '';
  private server: http.Server | null = null;
  protected readonly codes = new Map<string, Code>();
  protected readonly tokens = new Map<string, User>();
  /** Every token exchange, as sent, with what it answered. */
  readonly exchanges: { fields: Record<string, string>; status: number }[] = [];

  constructor(
    /** The user who consents next. */
    public user: User,
    /** The provider's name on its error pages. */
    private readonly brand: string,
  ) {}

  signInAs(user: User): this {
    this.user = user;
    return this;
  }

  async start(): Promise<this> {
    const { server, url } = await listen((req, res) => void this.handle(req, res).catch((e) => sendJson(res, 500, { error: String(e) })));
    this.server = server;
    this.url = url;
    return this;
  }

  stop(): Promise<void> {
    return close(this.server);
  }

  /** Where the browser goes after consenting on `authorizeUrl`, or an Error with the page's text. */
  abstract consent(authorizeUrl: string): string;

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;

  /** The authorize page: consents at once and redirects, or shows the provider's error page. */
  protected authorize(url: URL, res: http.ServerResponse): void {
    try {
      res.writeHead(302, { location: this.consent(url.toString()) });
      res.end();
    } catch (e) {
      sendHtml(res, 400, `<!doctype html><title>${this.brand}</title><p>${(e as Error).message}</p>`);
    }
  }

  /** The token endpoint: a form body, answered by `exchange` and recorded. */
  protected async token(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    exchange: (fields: Record<string, string>) => { status: number; body: object },
  ): Promise<void> {
    const fields = await this.form(req);
    const answer = exchange(fields);
    this.exchanges.push({ fields, status: answer.status });
    sendJson(res, answer.status, answer.body);
  }

  protected async form(req: http.IncomingMessage): Promise<Record<string, string>> {
    const { text } = await readBody(req);
    return Object.fromEntries(new URLSearchParams(text));
  }
}
