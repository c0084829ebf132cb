import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** A request's body read whole: its text, the JSON in it (when it parses) and the fields a form post carries. */
export interface RequestBody {
  text: string;
  json: unknown;
  /** The text read as `application/x-www-form-urlencoded` (what a browser form and ЮMoney's and FreeKassa's notifications send). */
  form: Record<string, string>;
}

/** Reads a request body: the text, JSON when it parses, and the text as form fields. */
export async function readBody(req: http.IncomingMessage): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const form = Object.fromEntries(new URLSearchParams(text));
  try {
    return { text, json: text ? (JSON.parse(text) as unknown) : undefined, form };
  } catch {
    return { text, json: undefined, form };
  }
}

/**
 * A provider's HTTP side on a free loopback port: `start()` opens it at `url`, `stop()` closes it.
 * Each request is read whole and given to `handle`; what `handle` throws is answered by `crashed`,
 * in the provider's own shape of an internal error.
 */
export abstract class HttpDouble {
  url = '';
  private server: http.Server | null = null;

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse, body: RequestBody): Promise<void>;
  protected abstract crashed(res: http.ServerResponse, err: unknown): void;

  async start(): Promise<this> {
    const { server, url } = await listen(
      (req, res) =>
        void readBody(req)
          .then((body) => this.handle(req, res, body))
          .catch((err: unknown) => this.crashed(res, err)),
    );
    this.server = server;
    this.url = url;
    return this;
  }

  async stop(): Promise<void> {
    await close(this.server);
    this.server = null;
  }
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** An HTTP server on a free loopback port. */
export async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

export async function close(server: http.Server | null): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** POSTs a notification the way a provider does; returns the site's status and body text. */
export async function postNotification(url: string, body: unknown): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 0, text: (err as Error).message };
  }
}

/** POSTs a form-encoded notification (ЮMoney, FreeKassa); returns the site's status and body text. */
export async function postForm(url: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 0, text: (err as Error).message };
  }
}
