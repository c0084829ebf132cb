import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError, unauthorized } from './errors.ts';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * For callers that are other servers holding a shared secret (GravitLauncher's LaunchServer):
 * `Authorization: Bearer <secret>`, compared in constant time (both sides hashed first, so not
 * even the length leaks). Without a configured secret the endpoints are off, and say so.
 */
/** Whether `Authorization: Bearer <token>` carries exactly `secret` (constant time). */
export function bearerMatches(secret: string, header: string | undefined): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice(7).trim() : '';
  return !!given && timingSafeEqual(digest(given), digest(secret));
}

export function requireBearerSecret(secret: string | undefined, header: string | undefined): void {
  if (!secret) throw new HttpError(503, 'Вход через GravitLauncher выключен: задайте переменную окружения GRAVIT_SECRET');
  if (!bearerMatches(secret, header)) throw unauthorized('Неверный ключ доступа (Authorization: Bearer GRAVIT_SECRET)');
}
