import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.ts';
import { peerIsTrustedProxy } from '../base/proxy-trust.ts';
import { WriteBehind } from './write-behind.ts';

/**
 * Request ids: a random prefix per process and a counter, unique across instances and cheap
 * enough for every request (the cached fast path included). Behind a trusted proxy an id the
 * proxy sent (`X-Request-Id`, e.g. nginx's $request_id) is kept, so both logs name one request
 * alike; an id of other characters or length is not trusted.
 */
export function requestIds(config: Pick<Config, 'trustProxy'>): (req: IncomingMessage) => string {
  const prefix = randomBytes(4).toString('hex');
  const trusted = peerIsTrustedProxy(config.trustProxy);
  let n = 0;
  return (req) => {
    // The header first: most requests carry none, and then the peer need not be looked up.
    const given = req.headers['x-request-id'];
    if (typeof given === 'string' && /^[A-Za-z0-9._:-]{1,100}$/.test(given) && trusted(req.socket?.remoteAddress)) return given;
    n = (n + 1) % Number.MAX_SAFE_INTEGER;
    return `${prefix}-${n.toString(36)}`;
  };
}

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'err', 'link']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/**
 * One readable line per log entry, for a person at a terminal (LOG_FORMAT=pretty): time, level,
 * request id, message, then the other fields as key=value; an error's stack and a letter's link
 * (mail without SMTP) on lines of their own, so they stand out and can be copied whole.
 */
export function formatPretty(line: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const [name, tint] = LEVELS[Number(entry.level)] ?? ['?    ', ''];
  const paint = (s: string, code: string) => (color && code ? `${code}${s}\x1b[0m` : s);
  const time = new Date(Number(entry.time) || Date.now()).toTimeString().slice(0, 8);
  const parts = [paint(time, '\x1b[90m'), paint(name, tint)];
  if (entry.reqId) parts.push(paint(`[${String(entry.reqId)}]`, '\x1b[90m'));
  parts.push(String(entry.msg ?? ''));
  for (const [k, v] of Object.entries(entry)) if (!HIDDEN.has(k) && v !== undefined) parts.push(paint(`${k}=${value(v)}`, '\x1b[90m'));
  let out = `${parts.join(' ')}\n`;
  if (typeof entry.link === 'string')
    out = `${out.replace(`; ссылка: ${entry.link}`, '')}    ${paint('ссылка из письма:', '\x1b[1m')} ${paint(entry.link, color ? '\x1b[4m' : '')}\n`;
  const err = entry.err as { stack?: string; message?: string } | undefined;
  if (err) out += `${(err.stack ?? err.message ?? value(err)).replace(/^/gm, '    ')}\n`;
  return out;
}

/** A pino destination that writes formatPretty lines to `out`. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): { write(line: string): void } {
  const color = !!out.isTTY && !process.env.NO_COLOR;
  return { write: (line) => void out.write(formatPretty(line, color)) };
}

/** Fastify's logger options: JSON lines, or pretty ones; secrets in headers never logged. */
export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): false | Record<string, unknown> {
  if (config.logLevel === 'silent') return false;
  return {
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
    ...(config.logFormat === 'pretty' ? { stream: prettyStream() } : {}),
  };
}

/**
 * The site's logger (pino, which Fastify takes as its own): JSON lines on stdout, or pretty ones;
 * `stream` instead of stdout (tests read the lines); silent at LOG_LEVEL=silent.
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, stream?: { write(line: string): void }): pino.Logger {
  const options = loggerOptions(config);
  if (options === false) return pino({ level: 'silent' });
  const { stream: own, ...rest } = options as { stream?: pino.DestinationStream } & pino.LoggerOptions;
  return pino(rest, (stream ?? own) as pino.DestinationStream | undefined);
}

/** One line per answered request: who, what, how it ended and how long it took. */
export type AccessLog = (reqId: string, method: string, url: string, status: number, ms: number) => void;

// Printable ASCII but `"` and `\`: such text is its own JSON string, with no escaping to do.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const jsonText = (text: string) => (PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));

/** Bytes of access lines gathered before a write (or 50 ms, whichever comes first). */
const BATCH = 65536;

/** `t` tenths of a millisecond as toFixed(1) writes them (t a whole number ≥ 0). */
function tenthsText(t: number): string {
  const whole = Math.trunc(t / 10);
  return `${whole}.${t - whole * 10}`;
}

/** The access line's message: `GET /api/user/me 200 0.4 ms`. */
const message = (method: string, url: string, status: number, ms: string) => `${method} ${url} ${status} ${ms} ms`;

/**
 * The access log at info and below, or null. In JSON it is the line pino would write for
 * `log.info({ reqId, method, url, status, ms }, msg)` (ms rounded to a tenth, the message
 * `GET /url 200 0.4 ms`), built as one string and copied into a buffer outside V8's heap; the
 * lines of the next 50 ms go to pino's destination in one write (pino's own way kept each line,
 * and the destination's pending text, alive through young-generation collections, and wrote once
 * a loop turn). The usual line is one template: the time's text is made once a millisecond, the
 * tenths with whole numbers (toFixed and a fraction's shortest text cost more than the rest of
 * the line), and a URL of plain ASCII is copied as Latin-1, with no UTF-8 to encode; request ids
 * and methods are plain by construction (requestIds, Node's parser). Built the general way
 * (toFixed, every field's escape check, UTF-8) a line costs half as much again, a noticeable part
 * of an answer's cost (docs/bench.md). The destination stays pino's asynchronous one, so a
 * journald that reads slowly never stalls the answers. Pretty lines for a terminal go through
 * pino as they are.
 */
export function accessLogger(
  log: FastifyBaseLogger,
  config: Pick<Config, 'logLevel' | 'logFormat'>,
): { write: AccessLog; flush: () => Promise<void> } | null {
  if (config.logLevel !== 'info' && config.logLevel !== 'debug' && config.logLevel !== 'trace') return null;
  if (config.logFormat === 'pretty')
    return {
      write: (reqId, method, url, status, ms) => {
        const tenths = Math.round(ms * 10) / 10;
        log.info({ reqId, method, url, status, ms: tenths }, message(method, url, status, tenths.toFixed(1)));
      },
      flush: () => Promise.resolve(),
    };
  const inner = log as unknown as Record<symbol, unknown>;
  const stream = inner[pino.symbols.streamSym] as { write(text: string): unknown };
  // The logger's own fields (pid, hostname), as pino writes them after the time.
  const bindings = inner[pino.symbols.chindingsSym] as string;
  // A host name beyond ASCII would not survive the Latin-1 copy: then every line takes UTF-8.
  const asciiBindings = /^[\x20-\x7e]*$/.test(bindings);
  const batch = Buffer.allocUnsafeSlow(BATCH);
  let used = 0;
  // Every line in the batch is ASCII: it is read back as Latin-1, with nothing to decode.
  let ascii = true;
  let millisecond = -1;
  let head = '';
  const lines = new WriteBehind(
    () => {
      if (used === 0) return undefined;
      const text = batch.toString(ascii ? 'latin1' : 'utf8', 0, used);
      used = 0;
      ascii = true;
      return text;
    },
    (text) => void stream.write(text),
    50,
  );
  const put = (line: string, plain: boolean) => {
    // Three bytes of UTF-8 at most for each of the string's UTF-16 units.
    const room = plain ? line.length : line.length * 3;
    if (room > BATCH - used) {
      void lines.flush();
      if (room > BATCH) return void stream.write(line);
    }
    if (plain) used += batch.write(line, used, 'latin1');
    else {
      used += batch.write(line, used);
      ascii = false;
    }
    lines.soon();
  };
  const write: AccessLog = (reqId, method, url, status, ms) => {
    const now = Date.now();
    if (now !== millisecond) {
      millisecond = now;
      head = `{"level":30,"time":${now}${bindings},"reqId":`;
    }
    const t = Math.round(ms * 10);
    if (!(t >= 0 && t < 2 ** 31) || !asciiBindings || !PLAIN.test(url))
      return void put(generalLine(head, reqId, method, url, status, t / 10), false);
    const fixed = tenthsText(t);
    put(
      `${head}"${reqId}","method":"${method}","url":"${url}","status":${status},"ms":${t % 10 === 0 ? t / 10 : fixed},"msg":"${message(method, url, status, fixed)}"}\n`,
      true,
    );
  };
  return { write, flush: () => lines.flush() };
}

/** Answers from memory, counted per URL (see memoryAnswerLog). */
export type MemoryAnswerLog = (url: string, ms: number) => void;

/** How often answers from memory are summed up in the log. */
export const MEMORY_SUMMARY_MS = 10_000;
/** URLs counted on their own per summary, and their longest; the rest are summed up together as `(other)`. */
const MEMORY_URLS = 1000;
const MEMORY_URL_CHARS = 512;

/**
 * At info, answers from memory (the front door's: always a GET's 200, the bytes an earlier answer
 * already sent) have no line each. They are counted per URL and written every 10 s as one line
 * per URL: `GET /api/tidings/news 200 ×1234 from memory in 10 s, up to 0.4 ms`. They are most of
 * a busy site's requests, a line each would be a tenth of their cost (docs/bench.md), and a line
 * each would fill the journal and its rate limit, which warnings and errors share. Every other
 * request keeps its own line, and LOG_LEVEL=debug gives answers from memory theirs again (null
 * is returned then, and the caller writes the access line). docs/decisions/298.
 */
export function memoryAnswerLog(
  log: FastifyBaseLogger,
  config: Pick<Config, 'logLevel'>,
  everyMs = MEMORY_SUMMARY_MS,
): { count: MemoryAnswerLog; flush: () => Promise<void> } | null {
  if (config.logLevel !== 'info') return null;
  let counts = new Map<string, { answers: number; maxMs: number; totalMs: number }>();
  let since = Date.now();
  const summary = new WriteBehind(
    () => {
      if (counts.size === 0) return undefined;
      const done = { counts, seconds: Math.max(1, Math.round((Date.now() - since) / 1000)) };
      counts = new Map();
      return done;
    },
    ({ counts: done, seconds }) => {
      for (const [url, { answers, maxMs, totalMs }] of done) {
        const upTo = Math.round(maxMs * 10) / 10;
        log.info(
          {
            method: 'GET',
            url,
            status: 200,
            fromMemory: answers,
            seconds,
            maxMs: upTo,
            avgMs: Math.round((totalMs / answers) * 100) / 100,
          },
          `GET ${url} 200 ×${answers} from memory in ${seconds} s, up to ${upTo.toFixed(1)} ms`,
        );
      }
    },
    everyMs,
  );
  const count: MemoryAnswerLog = (url, ms) => {
    let entry = counts.get(url);
    if (!entry) {
      if (counts.size === 0) {
        since = Date.now();
        summary.soon();
      }
      const key = counts.size < MEMORY_URLS && url.length <= MEMORY_URL_CHARS ? url : '(other)';
      entry = counts.get(key);
      if (!entry) counts.set(key, (entry = { answers: 0, maxMs: 0, totalMs: 0 }));
    }
    entry.answers++;
    entry.totalMs += ms;
    if (ms > entry.maxMs) entry.maxMs = ms;
  };
  return { count, flush: () => summary.flush() };
}

/** The access line for any URL and duration, escaped as JSON.stringify does. */
function generalLine(head: string, reqId: string, method: string, url: string, status: number, tenths: number): string {
  const finite = Number.isFinite(tenths);
  return (
    `${head}${jsonText(reqId)},"method":${jsonText(method)},"url":${jsonText(url)},"status":${status},"ms":${finite ? tenths : null}` +
    `,"msg":${jsonText(message(method, url, status, tenths.toFixed(1)))}}\n`
  );
}
