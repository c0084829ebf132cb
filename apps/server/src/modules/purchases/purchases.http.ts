import { IDEMPOTENCY_HEADER, IdempotencyKey } from '@kubik/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../../lib/errors.ts';

/** The headers schema of a purchase route: documents the optional Idempotency-Key in OpenAPI. */
export const purchaseHeaders = z.object({ [IDEMPOTENCY_HEADER]: IdempotencyKey.optional() });

/**
 * The request's Idempotency-Key, checked here rather than by the route's schema (purchase routes
 * attach validation errors to answer with their own texts); a malformed one is refused.
 */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = IdempotencyKey.safeParse(raw);
  if (!key.success) throw badRequest(key.error.issues[0]?.message ?? 'Некорректный заголовок Idempotency-Key', { code: 'invalid' });
  return key.data;
}
