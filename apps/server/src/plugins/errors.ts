import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { HttpError } from '../lib/errors.ts';

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

/** Every error leaves as { error: '<Russian text>' }; internals never reach the client. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) return reply.code(error.statusCode).send({ error: error.message });
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issue = error.validation[0];
      const field = issue?.instancePath?.replace(/^\//, '').replaceAll('/', '.');
      const message = issue?.message ?? 'Некорректный запрос';
      const where = error.validationContext === 'params' || error.validationContext === 'querystring' ? 'параметр' : 'поле';
      return reply.code(400).send({ error: field ? `${message} (${where} «${field}»)` : message });
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      return reply.code(500).send({ error: 'Внутренняя ошибка сервера. Попробуйте позже.' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const text = (error.code && FASTIFY_TEXTS[error.code]) ?? (error instanceof SyntaxError ? FASTIFY_TEXTS.FST_ERR_CTP_INVALID_JSON_BODY : 'Некорректный запрос');
      return reply.code(status).send({ error: text });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ error: 'Внутренняя ошибка сервера. Попробуйте позже.' });
  });
}
