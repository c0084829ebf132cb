import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyPayloadV1, keyPayloadV2, mime76, minecraftPem, signSha1 } from './certificates.ts';

describe('profile key certificates', () => {
  it("writes base64 as Java's MIME encoder: 76 columns, no newline after the last line", () => {
    expect(
      mime76(Buffer.alloc(294, 7))
        .split('\n')
        .map((l) => l.length),
    ).toEqual([76, 76, 76, 76, 76, 12]);
    expect(mime76(Buffer.alloc(57, 1))).not.toContain('\n');
    expect(
      mime76(Buffer.alloc(114, 1))
        .split('\n')
        .map((l) => l.length),
    ).toEqual([76, 76]);
    expect(minecraftPem('PUBLIC', Buffer.alloc(3, 255))).toBe('-----BEGIN RSA PUBLIC KEY-----\n////\n-----END RSA PUBLIC KEY-----\n');
  });

  it('V2 signs the UUID as 16 bytes (leading zeros kept), the expiry as a 64-bit big-endian number, then the key', () => {
    const der = Buffer.from('3082', 'hex');
    const payload = keyPayloadV2('00000000-0000-4000-8000-00000000abcd', 1662072237025, der);
    expect(payload.toString('hex')).toBe('00000000000040008000' + '00000000abcd' + '00000182fb39abe1' + '3082');
    expect(keyPayloadV2('069a79f444e94726a5befca90e38aaf5', 1662072237025, der).subarray(0, 24).toString('hex')).toBe(
      '069a79f444e94726a5befca90e38aaf500000182fb39abe1',
    );
    expect(() => keyPayloadV2('not-a-uuid', 1, der)).toThrow();
  });

  it('V1 signs the expiry as decimal text followed by the key in PEM, and both verify with SHA1withRSA', () => {
    const site = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const der = Buffer.alloc(100, 9);
    const v1 = keyPayloadV1(1662072237025, der);
    expect(v1.toString('utf8')).toBe(`1662072237025-----BEGIN RSA PUBLIC KEY-----\n${mime76(der)}\n-----END RSA PUBLIC KEY-----\n`);
    const sig = signSha1(v1, site.privateKey);
    expect(verify('sha1', v1, site.publicKey, Buffer.from(sig, 'base64'))).toBe(true);
    expect(verify('sha256', v1, site.publicKey, Buffer.from(sig, 'base64'))).toBe(false);
  });
});
