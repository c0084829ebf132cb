import { describe, expect, it } from 'vitest';
import { verifyAuthMe } from './hashes.ts';
import { sha256Hash } from './digests.ts';
import { decodeJavaBase64, javaAscii, javaLatin1, javaSplit, javaUtf8, parseCount } from './text.ts';

describe("Java's ways with text, as AuthMe's hashes meet them", () => {
  it('UTF-8 writes a lone surrogate as "?", a pair as one 4-byte letter', () => {
    expect(javaUtf8('a\uD800b')).toEqual(Buffer.from('a?b'));
    expect(javaUtf8('a\uDC00')).toEqual(Buffer.from('a?'));
    expect(javaUtf8('😀')).toEqual(Buffer.from([0xf0, 0x9f, 0x98, 0x80]));
    expect(javaUtf8('Пароль')).toEqual(Buffer.from('Пароль', 'utf8'));
  });

  it('ASCII and ISO-8859-1 write one "?" for each code point they lack', () => {
    expect(javaAscii('ж😀a\uD800')).toEqual(Buffer.from('??a?'));
    expect(javaAscii('ж😀a')).toEqual(Buffer.from('??a'));
    expect(javaLatin1('é€ÿ')).toEqual(Buffer.from([0xe9, 0x3f, 0xff]));
  });

  it('split drops trailing empty parts and keeps leading and inner ones', () => {
    expect(javaSplit('$a$$b$$', '$')).toEqual(['', 'a', '', 'b']);
    expect(javaSplit('abc', '$')).toEqual(['abc']);
    expect(javaSplit('', '$')).toEqual(['']);
    expect(javaSplit('$$$', '$')).toEqual([]);
  });

  it("Base64 as java.util.Base64's basic decoder reads it", () => {
    expect(decodeJavaBase64('QUJD')).toEqual(Buffer.from('ABC'));
    expect(decodeJavaBase64('QUI=')).toEqual(Buffer.from('AB'));
    expect(decodeJavaBase64('QUI')).toEqual(Buffer.from('AB'));
    expect(decodeJavaBase64('')).toEqual(Buffer.alloc(0));
    for (const bad of ['QUI==', 'QQ=', 'Q', 'QU-_', 'QU I', 'Q=UI', 'QUJD====']) expect([bad, decodeJavaBase64(bad)]).toEqual([bad, null]);
  });

  it('counts are plain decimal digits within the limits', () => {
    expect(parseCount('010', 1, 100)).toBe(10);
    for (const bad of ['', '-5', '+5', '0', '101', '1e3', ' 5', '99999999999']) expect([bad, parseCount(bad, 1, 100)]).toEqual([bad, null]);
  });

  it('a password with a lone surrogate is hashed as Java would, with "?" in its place', async () => {
    const hash = sha256Hash('pass?word', '0123456789abcdef');
    expect(await verifyAuthMe('SHA256', hash, null, 'pass\uD83Dword', 'x')).toBe(true);
  });
});
