import { ERROR_CODE_MEANINGS, ERROR_CODES, ErrorResponse, isErrorCode, type ErrorCode } from '@kubik/contract';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, takeStrayErrorCodes } from '../lib/errors.ts';
import { registerErrorHandling } from '../plugins/errors.ts';
import { createTestApp, dbKinds, type TestApp } from '../test/test-app.ts';

/*
 * Error codes are a closed list: packages/contract/src/errors.ts. HttpError accepts only its codes
 * (typecheck), the contract's error schema refuses any other (the server's serializer checks each
 * declared error answer), and plugins/errors.ts notes every error body leaving with a code the
 * list lacks, which fails the API test file that drove it (src/test/error-codes.setup.ts).
 * This file proves those fences hold.
 */

describe('the ErrorCode list', () => {
  it('names every code in snake_case with a meaning', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(80);
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(ERROR_CODE_MEANINGS[code].length, code).toBeGreaterThan(10);
    }
    expect(isErrorCode('insufficient_funds')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(401)).toBe(false);
  });

  it('the error schema takes the listed codes only, and keeps the fields a route adds', () => {
    expect(ErrorResponse.safeParse({ error: 'Недостаточно средств на балансе', code: 'insufficient_funds' }).success).toBe(true);
    expect(ErrorResponse.safeParse({ error: 'Текст', code: 'made_up' }).success).toBe(false);
    expect(ErrorResponse.safeParse({ error: 'Текст' }).success).toBe(false);
    expect(ErrorResponse.parse({ error: 'Набор', code: 'kit_cooldown', next_claim_at: 5 })).toEqual({
      error: 'Набор',
      code: 'kit_cooldown',
      next_claim_at: 5,
    });
  });
});

describe('a code the list lacks is caught at run time, whichever way it leaves', () => {
  let app: FastifyInstance;
  const madeUp = (name: string) => name as ErrorCode;
  beforeAll(async () => {
    app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(app);
    app.get('/thrown', () => {
      throw new HttpError(409, 'Конфликт', { code: madeUp('thrown_made_up') });
    });
    app.get('/declared', { schema: { response: { 200: ErrorResponse, 409: ErrorResponse } } }, () => {
      throw new HttpError(409, 'Конфликт', { code: madeUp('declared_made_up') });
    });
    app.get('/sent', (_request, reply) => reply.code(403).send({ error: 'Нельзя', code: 'sent_made_up' }));
    app.get('/none', (_request, reply) => reply.code(400).send({ error: 'Без кода' }));
    app.get('/known', () => {
      throw new HttpError(409, 'Недостаточно средств на балансе', { code: 'insufficient_funds' });
    });
    app.get('/framework', () => {
      throw Object.assign(new Error('teapot'), { statusCode: 418, code: 'FST_SOMETHING_NEW' });
    });
    // GravitLauncher's protocol: numeric codes, outside the site's list.
    app.get('/api/gravit/fail', (_request, reply) => reply.code(400).send({ error: 'auth.wrongpassword', code: 0 }));
    app.get('/api/yggdrasil/fail', (_request, reply) =>
      reply.code(403).send({ error: 'ForbiddenOperationException', errorMessage: 'Invalid token.' }),
    );
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });
  afterEach(() => {
    // What these tests provoke on purpose must not fail the file in error-codes.setup.ts.
    takeStrayErrorCodes();
  });

  it('records a made-up code thrown, sent past HttpError, or missing (Fastify’s own 404 too), and sends the generic code instead', async () => {
    const thrown = await app.inject({ method: 'GET', url: '/thrown' });
    expect([thrown.statusCode, thrown.json()]).toEqual([409, { error: 'Конфликт', code: 'conflict' }]);
    const sent = await app.inject({ method: 'GET', url: '/sent?x=1' });
    expect([sent.statusCode, sent.json()]).toEqual([403, { error: 'Нельзя', code: 'forbidden' }]);
    expect((await app.inject({ method: 'GET', url: '/none' })).json()).toEqual({ error: 'Без кода', code: 'bad_request' });
    expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    expect(takeStrayErrorCodes()).toEqual([
      '409 GET /thrown: "thrown_made_up"',
      '403 GET /sent: "sent_made_up"',
      '400 GET /none: no code',
      '404 GET /nowhere: no code',
    ]);
    expect(takeStrayErrorCodes()).toEqual([]);
  });

  it('a route whose declared error answer refuses the made-up code still answers with its status and text', async () => {
    const res = await app.inject({ method: 'GET', url: '/declared' });
    expect([res.statusCode, res.json()]).toEqual([409, { error: 'Конфликт', code: 'conflict' }]);
    expect(takeStrayErrorCodes()).toEqual(['409 GET /declared: "declared_made_up"']);
  });

  it('records nothing for listed codes, framework errors (mapped to listed codes) and the launchers’ own shapes', async () => {
    expect((await app.inject({ method: 'GET', url: '/known' })).json()).toEqual({
      error: 'Недостаточно средств на балансе',
      code: 'insufficient_funds',
    });
    expect((await app.inject({ method: 'GET', url: '/framework' })).json()).toEqual({ error: 'Некорректный запрос', code: 'bad_request' });
    expect((await app.inject({ method: 'GET', url: '/api/gravit/fail' })).json()).toEqual({ error: 'auth.wrongpassword', code: 0 });
    expect((await app.inject({ method: 'GET', url: '/api/yggdrasil/fail' })).statusCode).toBe(403);
    expect(takeStrayErrorCodes()).toEqual([]);
  });
});

describe.each(dbKinds)('error codes of the site on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, rateLimits: { enabled: false } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the OpenAPI document lists the codes once, and every error answer of the site refers to them', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json<{
      components: { schemas: Record<string, { enum?: string[]; description?: string }> };
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    }>();
    expect(doc.components.schemas.ErrorCode?.enum).toEqual(ERROR_CODES);
    for (const code of ERROR_CODES)
      expect(doc.components.schemas.ErrorCode?.description).toContain(`- \`${code}\`: ${ERROR_CODE_MEANINGS[code]}`);
    let refs = 0;
    const inline: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (path.startsWith('/api/yggdrasil') || path.startsWith('/api/gravit')) continue;
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, answer] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          for (const { schema } of Object.values(answer.content ?? {})) {
            const code = (schema as { properties?: { code?: { $ref?: string; enum?: unknown[]; const?: unknown } } }).properties?.code;
            if (!code) continue;
            if (code.$ref === '#/components/schemas/ErrorCode') refs += 1;
            // A route may narrow the code to some of the list (the readiness probe's `not_ready`).
            else if (!(code.enum ?? [code.const]).every(isErrorCode)) inline.push(`${method} ${path} ${status}: ${JSON.stringify(code)}`);
          }
        }
      }
    }
    expect(inline).toEqual([]);
    expect(refs).toBeGreaterThan(200);
  });

  it('sends the spec’s «Invalid token» only as invalid_token, the code the web goes to /login on', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/user/all', headers: { authorization: `Bearer ${'x'.repeat(43)}` } });
    expect([res.statusCode, res.json()]).toEqual([401, { error: 'Invalid token', code: 'invalid_token' }]);
  });
});
