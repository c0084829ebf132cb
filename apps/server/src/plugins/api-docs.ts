import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';

/** The API's description (OpenAPI, from every route's schemas) and its pages at /api/docs. */
export async function registerApiDocs(app: FastifyInstance, config: Readonly<Config>): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: `${config.siteName} API`,
        description:
          'API сайта игрового сервера. Ошибки: { "error": "текст", "code": "машинный_код", "field": "путь.к.полю" } (field — только когда виновато одно поле). Вход: cookie сеанса или заголовок Authorization: Bearer <токен из /api/user/login с bearer: true>.',
        version: '1.0.0',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // Schemas with an id (the contract's ErrorCode) become components the routes refer to.
    transformObject: jsonSchemaTransformObject,
  });
  // Its pages and logo lie beside its own code, which the production bundle moves (scripts/build.mjs).
  const files = path.join(path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    baseDir: files,
    logo: { type: 'image/svg+xml', content: readFileSync(path.join(files, 'logo.svg')) },
  });
}
