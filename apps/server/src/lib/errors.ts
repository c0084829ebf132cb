import { ErrorResponse, type ErrorCode } from '@kubik/contract';

/** What an API error may carry beside its text; see HttpError. */
export interface ErrorDetails {
  /** Stable, machine-readable: clients branch on it instead of on the text. A new code goes into the contract's ERROR_CODE_MEANINGS first. */
  code?: ErrorCode;
  /** The body (or query) field at fault, in dot form (`kits.0.name`); forms show the text beside it. */
  field?: string;
  /** Further fields a route adds to the answer (e.g. `two_factor_required: true`). */
  extra?: Record<string, unknown>;
}

/** The code an error gets when its thrower names none. */
const DEFAULT_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal',
};

export function defaultCode(statusCode: number): ErrorCode {
  return DEFAULT_CODES[statusCode] ?? (statusCode >= 500 ? 'internal' : 'bad_request');
}

/** The body of every API error: `{ error: "<Russian text>", code, field?, …extra }`. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  field?: string;
  [extra: string]: unknown;
}

/** An error whose message is safe to show to the user; the API answers `{ error: message, code, field? }`. */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    readonly statusCode: number,
    message: string,
    details: ErrorDetails = {},
  ) {
    // A refusal is answered, never logged: it takes no stack trace, a good part of what a 401 cost.
    const stackTraceLimit = Error.stackTraceLimit;
    if (statusCode < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.code = details.code ?? defaultCode(statusCode);
    this.field = details.field;
    this.extra = details.extra;
  }

  toBody(): ErrorBody {
    return { ...this.extra, error: this.message, code: this.code, ...(this.field !== undefined && { field: this.field }) };
  }
}

export const badRequest = (m: string, details?: ErrorDetails) => new HttpError(400, m, details);
export const unauthorized = (m = 'Войдите в аккаунт', details?: ErrorDetails) => new HttpError(401, m, details);
export const forbidden = (m = 'Недостаточно прав', details?: ErrorDetails) => new HttpError(403, m, details);
export const notFound = (m = 'Не найдено', details?: ErrorDetails) => new HttpError(404, m, details);
export const conflict = (m: string, details?: ErrorDetails) => new HttpError(409, m, details);
export const tooMany = (m = 'Слишком много попыток. Попробуйте позже.', details?: ErrorDetails) => new HttpError(429, m, details);

/** Error codes sent that the contract's ErrorCode lacks (plugins/errors.ts notes them; a few kept, not a log). */
const strayCodes = new Set<string>();

export function noteStrayErrorCode(seen: string): void {
  if (strayCodes.size < 50) strayCodes.add(seen);
}

/** Empties and returns the record of stray codes; every API test file fails on any (src/test/error-codes.setup.ts). */
export function takeStrayErrorCodes(): string[] {
  const seen = [...strayCodes];
  strayCodes.clear();
  return seen;
}

/** Unique-constraint violations on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return !!e && (e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(e.message ?? ''));
}

/** A route schema's error answers: `...errorReplies(400, 404)` declares each status with the one error body. */
export const errorReplies = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorResponse]));
