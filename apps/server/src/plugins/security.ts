import helmet from 'helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { ErrorBody } from '../lib/errors.ts';

/** What the site needs and nothing more: own scripts only, images from anywhere (news covers). */
const CSP_DIRECTIVES: Record<string, string[]> = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:', 'https:', 'http:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/**
 * authlib-injector's API location indication: any page of the site names the Yggdrasil API root,
 * so a player may type just the site's address into a launcher. Relative, so it is right behind
 * any proxy and host name; launchers resolve it against the page they fetched.
 */
export const API_LOCATION_HEADER = 'x-authlib-injector-api-location';
export const API_LOCATION = '/api/yggdrasil/';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * helmet's middleware built once (the Fastify wrapper rebuilds it, parsing the CSP, on every
 * request) and run first for every answer.
 */
export function registerSecurityHeaders(app: FastifyInstance, config: Readonly<Config>): void {
  // The top-up page posts ЮMoney's quickpay form to ЮMoney (YOOMONEY_FORM_URL's origin, by
  // default https://yoomoney.ru): the one other address a form may go to.
  const quickpay = config.payments.defaults?.urls['yoomoney.form_url'];
  const directives = quickpay ? { ...CSP_DIRECTIVES, formAction: ["'self'", new URL(quickpay).origin] } : CSP_DIRECTIVES;
  const apply = helmet({
    contentSecurityPolicy: { useDefaults: false, directives },
    crossOriginEmbedderPolicy: false,
    hsts: config.secureCookies,
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader(API_LOCATION_HEADER, API_LOCATION);
    apply(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}

/** The same protection for answers Fastify writes before any hook runs (malformed URLs). */
function baseHeaders(): Record<string, string> {
  return {
    'content-security-policy': Object.entries(CSP_DIRECTIVES)
      .map(([k, v]) => `${kebab(k)} ${v.join(' ')}`)
      .join(';'),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    [API_LOCATION_HEADER]: API_LOCATION,
  };
}

/** Fastify's router errors (a broken %-escape, an over-long parameter) in our shape and language. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const text = tooLong ? 'Слишком длинный адрес запроса' : 'Некорректный адрес запроса';
  // Game launcher protocols read errors in their own shapes (see modules/game-auth).
  const url = request.raw.url ?? '';
  const body = url.startsWith('/api/yggdrasil/')
    ? { error: tooLong ? 'URI Too Long' : 'Bad Request', errorMessage: tooLong ? '414 URI Too Long' : '400 Bad Request' }
    : url.startsWith('/api/gravit/')
      ? { error: text, code: 0 }
      : ({ error: text, code: tooLong ? 'uri_too_long' : 'bad_request' } satisfies ErrorBody);
  void reply
    .headers(baseHeaders())
    .code(tooLong ? 414 : 400)
    .send(body);
}

/** Text the database cannot keep faithfully: NUL bytes and unpaired UTF-16 surrogates. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function hasBadText(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000') || LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasBadText);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => hasBadText(k) || hasBadText(v));
  return false;
}

/**
 * JSON bodies go through Fastify's own parser (with its prototype-poisoning protection) and are
 * then refused if any text holds characters no field may contain.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parse(request, String(body), (err, value) => {
      if (err) return done(err, undefined);
      if (hasBadText(value))
        return done(Object.assign(new Error('Недопустимые символы в тексте'), { statusCode: 400, code: 'KUBIK_BAD_TEXT' }), undefined);
      done(null, value);
    });
  });
}
