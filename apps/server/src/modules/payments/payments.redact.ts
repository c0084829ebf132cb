/**
 * Fields of a provider's notification or answer that prove it authentic or are secrets: ЮMoney
 * `sha1_hash`, T-Bank `Token` (and its `Password`), FreeKassa `SIGN`, API `signature`s. They have
 * no use once the notification is checked, and whoever read one could replay the notification
 * with the fields it does not cover changed: the payment's events never keep or show them.
 */
const KEYS = ['sha1_hash', 'token', 'sign', 'signature', 'password', 'secret', 'notification_secret', 'api_key'].join('|');

/** `"key": value` in JSON, the value a string (possibly cut off where the event body was cut) or a bare word. */
const JSON_FIELD = new RegExp(`("(?:${KEYS})"\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"?|[^,}\\]\\s]+)`, 'gi');
/** `key=value` in a form or a query string. */
const FORM_FIELD = new RegExp(`((?:^|[?&])(?:${KEYS})=)[^&#\\s"]*`, 'gi');

export const REDACTED = '[скрыто]';

/** A stored event body (JSON, form-encoded or plain text) with every such field's value replaced. */
export function redactSignatures(text: string): string {
  return text.replace(JSON_FIELD, `$1"${REDACTED}"`).replace(FORM_FIELD, `$1${REDACTED}`);
}
