import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * The small pieces of Java that AuthMe's hashes depend on: how a Java String becomes bytes, how
 * String.split cuts a stored hash, how hex digests are spelled, how random salts are drawn.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * UTF-8 as Java's String.getBytes(UTF_8) writes it: a lone surrogate becomes '?', where Node
 * would write U+FFFD. AuthMe's plain getBytes() uses the JVM's default charset, which is UTF-8
 * on Java 18+ and on any Linux server with a UTF-8 locale.
 */
export function javaUtf8(text: string): Buffer {
  return Buffer.from(text.replace(LONE_SURROGATE, '?'), 'utf8');
}

/** A one-byte charset as Java's encoder writes it: a code point beyond it becomes one '?'. */
function javaSingleByte(text: string, highest: number): Buffer {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes.push(code <= highest ? code : 0x3f);
  }
  return Buffer.from(bytes);
}

/** String.getBytes(US_ASCII): PBKDF2DJANGO and PHPFUSION hash only ASCII; the rest turns into '?'. */
export const javaAscii = (text: string): Buffer => javaSingleByte(text, 0x7f);
/** String.getBytes(ISO_8859_1): phpBB's phpass hashes Latin-1. */
export const javaLatin1 = (text: string): Buffer => javaSingleByte(text, 0xff);

/**
 * Java's String.split with a one-character separator: trailing empty parts are dropped, so
 * "a$b$" has two parts; a string without the separator is one part.
 */
export function javaSplit(text: string, separator: string): string[] {
  const parts = text.split(separator);
  if (parts.length === 1) return parts;
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

export type Digest = 'md5' | 'sha1' | 'sha256' | 'sha512';

/** HashUtils.hash: the digest of the text's UTF-8 bytes in lower-case hex, zero-padded. */
export function hexDigest(algorithm: Digest, text: string | Buffer): string {
  return createHash(algorithm)
    .update(typeof text === 'string' ? javaUtf8(text) : text)
    .digest('hex');
}

/** AuthMe compares stored and computed hashes byte for byte (MessageDigest.isEqual), case included. */
export function sameText(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(computed, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** RandomStringUtils: generateHex (16 symbols), generate (36: digits and lower case), generateLowerUpper (62). */
export function randomText(length: number, symbols: 16 | 36 | 62): string {
  let text = '';
  for (let i = 0; i < length; i++) text += ALPHABET[randomInt(symbols)];
  return text;
}

/** Guava's Ints.tryParse as AuthMe reads iteration counts, limited to what the site agrees to run. */
export function parseCount(text: string, min: number, max: number): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

/**
 * java.util.Base64's basic decoder: the standard alphabet, padding optional but whole when
 * present. Anything else makes Java throw, so no password can match: null.
 */
export function decodeJavaBase64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  if (body.length !== text.length && text.length % 4 !== 0) return null;
  return Buffer.from(body, 'base64');
}
