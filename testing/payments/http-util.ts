import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** Reads a request body; JSON when it parses, else the text (form posts are parsed by the caller). */
export async function readBody(req: http.IncomingMessage): Promise<{ text: string; json: unknown }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { text, json: text ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    return { text, json: undefined };
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
