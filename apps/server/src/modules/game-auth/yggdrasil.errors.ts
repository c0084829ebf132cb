/** An error in the protocol's shape: { error, errorMessage } (authlib-injector's specification). */
export class YggdrasilError extends Error {
  constructor(
    readonly statusCode: number,
    readonly error: string,
    readonly errorMessage: string,
    /** Seconds for the Retry-After header (429 only). */
    readonly retryAfterSec?: number,
  ) {
    super(errorMessage);
  }
}
