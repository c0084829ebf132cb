import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerSource, CachedBody } from '../lib/public-cache.ts';

/**
 * The bytes of an answer given from memory, and the rules both kinds of such answers share: which
 * requests may get one, how its headers are kept, how it is written.
 */

/** Headers as Fastify set them on an answer (reply.getHeaders()). */
export type AnswerHeaders = Record<string, string | number | string[] | undefined>;

/**
 * A request whose answer may depend on what the client already has (a cached copy, a range):
 * never answered from memory, Fastify's route decides (a 304, say). The one rule for both kinds.
 */
export function isConditional(headers: IncomingHttpHeaders): boolean {
  return (
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    headers['if-match'] !== undefined ||
    headers['if-unmodified-since'] !== undefined ||
    headers['if-range'] !== undefined ||
    headers.range !== undefined
  );
}

export const acceptsGzip = (headers: IncomingHttpHeaders): boolean => /\bgzip\b/.test(headers['accept-encoding'] ?? '');

/**
 * An answer's headers as writeHead's flat [name, value, …] list: content-length last but one, and
 * a last slot for the request id's value (writeKept fills it; writeHead reads the list at once
 * and keeps no reference, so one list serves every answer without a copy). Null for an answer
 * that must not be repeated: one that sets a cookie or ends its connection.
 */
export function headerList(headers: AnswerHeaders, bodyLength: number): string[] | null {
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'content-length' || name === 'x-request-id') continue;
    if (name === 'set-cookie' || name === 'connection') return null;
    for (const v of Array.isArray(value) ? value : [value]) flat.push(name, String(v));
  }
  flat.push('content-length', String(bodyLength), 'x-request-id', '');
  return flat;
}

/**
 * An answer's bytes as a string of one byte per character, sent with `res.end(text, 'latin1')`:
 * Node then writes the header and the body as one string, where a Buffer body is a second chunk
 * of the socket's write (docs/bench.md: the cost of an answer from memory). Latin-1 maps each
 * byte to the character of that code and back, so the bytes are the same.
 */
export const latin1Body = (bytes: Buffer): string => bytes.toString('latin1');

/** Writes a kept answer: status 200, its headers with this request's id, its bytes. */
export function writeKept(res: ServerResponse, headers: string[], body: string, requestId: string): void {
  headers[headers.length - 1] = requestId;
  res.writeHead(200, headers);
  res.end(body, 'latin1');
}

/** A public answer a route sent with sendCached: the front door keeps its bytes and headers. */
export interface PublicCapture {
  key: string;
  body: CachedBody;
  gzip: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    publicCapture?: PublicCapture;
  }
}

const answered = new WeakMap<IncomingMessage, AnswerSource>();
/** The public answer sendCached() gave this request (an app.inject's `res.raw.req`), if any. */
export const answeredFrom = (req: IncomingMessage): AnswerSource | undefined => answered.get(req);

/** Sends a public answer from the cache: 304 when the client has it, gzip when the client accepts it. */
export function sendCached(request: FastifyRequest, reply: FastifyReply, body: CachedBody, maxAgeSec = 0): FastifyReply {
  reply
    .header('etag', body.etag)
    .header('vary', 'accept-encoding')
    .header('cache-control', maxAgeSec > 0 ? `public, max-age=${maxAgeSec}` : 'no-cache');
  if (request.headers['if-none-match'] === body.etag) return reply.code(304).send();
  reply.header('content-type', body.contentType);
  const gzip = acceptsGzip(request.headers);
  const cache = request.server.ctx.publicCache;
  const key = cache.keyOf(body);
  if (key && request.method === 'GET') {
    request.publicCapture = { key, body, gzip };
    answered.set(request.raw, { key, generation: cache.generationOf(key) });
  }
  if (gzip) return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}
