import { isErrorCode, type ErrorCode } from '@kubik/contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isConnectionError } from '../db/index.ts';
import { defaultCode, HttpError, noteStrayErrorCode, type ErrorBody } from '../lib/errors.ts';
import { fieldLabel } from '../lib/field-label.ts';

const FASTIFY_TEXTS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Слишком большой запрос',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Неподдерживаемый тип содержимого запроса',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Некорректная длина запроса',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Пустое тело запроса: ожидался JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Некорректный JSON в теле запроса',
  FST_ERR_CTP_EMPTY_TYPE: 'Не указан тип содержимого запроса',
  FST_ERR_CTP_INVALID_TYPE: 'Некорректный тип содержимого запроса',
  KUBIK_BAD_TEXT: 'Недопустимые символы в тексте (нулевой байт или повреждённый Юникод)',
  FST_ERR_CTP_INVALID_JSON_BODY_PROTO: 'Некорректный JSON в теле запроса',
};

const FASTIFY_CODES: Partial<Record<string, ErrorCode>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY_PROTO: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  KUBIK_BAD_TEXT: 'invalid_text',
};

const CONTEXTS = { body: 'body', querystring: 'querystring', params: 'params', headers: 'headers' } as const;

/**
 * Every error leaves as `{ error: '<Russian text>', code, field? }`; internals never reach the
 * client. A refused field is named by its Russian label from the route's schema (lib/field-label.ts),
 * never by its code name; `field` carries the path for forms.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      const retryAfter = error.extra?.retry_after;
      if (error.statusCode === 429 && typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
      return reply.code(error.statusCode).send(error.toBody());
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issue = error.validation[0];
      const path = (issue?.instancePath ?? '').split('/').filter(Boolean);
      const field = path.length > 0 ? path.join('.') : undefined;
      const message = issue?.message ?? 'Некорректный запрос';
      const context = CONTEXTS[error.validationContext as keyof typeof CONTEXTS];
      const schema = context ? (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context] : undefined;
      const label = field ? fieldLabel(schema, path) : undefined;
      const where = context === 'params' || context === 'querystring' ? 'параметр' : 'поле';
      return reply.code(400).send({
        error: label ? `${message} (${where} «${label}»)` : message,
        code: 'invalid',
        ...(field && { field }),
      } satisfies ErrorBody);
    }
    // The database cannot be reached (an outage, a restart, a cut network): a 503 the client and
    // nginx retry (on another instance), never a 500. Nothing was changed: a transaction that lost
    // its connection is rolled back by PostgreSQL.
    if (isConnectionError(error)) {
      request.log.warn({ err: error }, 'database unreachable: 503');
      return reply.code(503).header('retry-after', DB_RETRY_AFTER_SEC).header('cache-control', 'no-store').send(DB_UNAVAILABLE);
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      return reply.code(500).send(INTERNAL);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const text =
        (error.code ? FASTIFY_TEXTS[error.code] : undefined) ??
        (error instanceof SyntaxError ? FASTIFY_TEXTS.FST_ERR_CTP_INVALID_JSON_BODY : undefined) ??
        'Некорректный запрос';
      const code =
        (error.code ? FASTIFY_CODES[error.code] : undefined) ?? (error instanceof SyntaxError ? 'invalid_json' : defaultCode(status));
      return reply.code(status).send({ error: text, code } satisfies ErrorBody);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(INTERNAL);
  });
  app.addHook('preSerialization', checkErrorCode);
}

const DB_RETRY_AFTER_SEC = '2';
const DB_UNAVAILABLE = {
  error: 'База данных временно недоступна. Повторите через несколько секунд.',
  code: 'db_unavailable',
} as const satisfies ErrorBody;

const INTERNAL = { error: 'Внутренняя ошибка сервера. Попробуйте позже.', code: 'internal' } as const satisfies ErrorBody;

/** The game launchers' protocols answer errors in their own shapes (modules/game-auth), not in ErrorBody. */
const OWN_ERROR_SHAPES = ['/api/yggdrasil', '/api/gravit'];

/**
 * Every error body the site sends, from whichever path (HttpError, a framework error, a route's own
 * reply), before it is serialized: a code the contract lacks (or none) is logged, recorded for the
 * tests, and replaced by the status's generic code, so the answer keeps its status and text rather
 * than failing its declared schema. Typing stops most such codes at compile time; this catches codes
 * built at run time and bodies sent past HttpError. (Router errors, plugins/security.ts, pass no hooks.)
 */
function checkErrorCode(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  if (reply.statusCode < 400 || payload === null || typeof payload !== 'object' || Array.isArray(payload)) return done(null, payload);
  const code = (payload as { code?: unknown }).code;
  const url = request.url;
  if (isErrorCode(code) || OWN_ERROR_SHAPES.some((prefix) => url.startsWith(prefix))) return done(null, payload);
  request.log.error({ code, status: reply.statusCode }, 'error code missing from the contract’s ErrorCode');
  noteStrayErrorCode(
    `${reply.statusCode} ${request.method} ${request.routeOptions.url ?? url.split('?')[0]}: ${JSON.stringify(code) ?? 'no code'}`,
  );
  done(null, { ...payload, code: defaultCode(reply.statusCode) });
}
