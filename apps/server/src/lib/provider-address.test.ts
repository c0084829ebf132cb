import { describe, expect, it } from 'vitest';
import { addressProblem, sameAddress } from './provider-address.ts';

const HOSTS = ['pay.freekassa.com', 'pay.freekassa.ru'];

describe('addresses typed in the admin', () => {
  it('takes https on the provider’s own hosts, any path', () => {
    for (const ok of [
      'https://pay.freekassa.com/',
      'https://pay.freekassa.ru',
      'https://PAY.freekassa.com/sci?x=1',
      ' https://pay.freekassa.com ',
    ]) {
      expect(addressProblem(ok, HOSTS, 'https://pay.freekassa.com/'), ok).toBeNull();
    }
  });

  it('refuses http, other hosts, look-alikes, ports, user names and what is no address', () => {
    const https = 'Адрес должен начинаться с https://';
    const host = 'Адрес должен вести на pay.freekassa.com или pay.freekassa.ru';
    for (const [bad, text] of [
      ['http://pay.freekassa.com/', https],
      ['pay.freekassa.com', https],
      ['javascript:alert(1)', https],
      ['ftp://pay.freekassa.com/', https],
      ['', https],
      ['https://127.0.0.1/', host],
      ['https://[::1]/', host],
      ['https://169.254.169.254/latest/meta-data', host],
      ['https://pay.freekassa.com.evil.example/', host],
      ['https://evil.example/pay.freekassa.com', host],
      ['https://pay.freekassa.com./', host],
      ['https://xpay.freekassa.com/', host],
      ['https://pay.freekassa.com:8443/', host],
      ['https://user:pass@pay.freekassa.com/', host],
      ['https://pay.freekassa.com@evil.example/', host],
    ] as const) {
      expect(addressProblem(bad, HOSTS, 'https://pay.freekassa.com/'), bad).toBe(text);
    }
  });

  it('takes the very origin the environment names, http and a port included, and nothing beside it', () => {
    const env = 'http://127.0.0.1:3499/v1';
    expect(addressProblem('http://127.0.0.1:3499/v1', HOSTS, env)).toBeNull();
    expect(addressProblem('http://127.0.0.1:3499/other', HOSTS, env)).toBeNull();
    expect(addressProblem('http://127.0.0.1:3500/v1', HOSTS, env)).not.toBeNull();
    expect(addressProblem('https://127.0.0.1:3499/v1', HOSTS, env)).not.toBeNull();
    expect(addressProblem('http://user:x@127.0.0.1:3499/v1', HOSTS, env)).not.toBeNull();
    expect(addressProblem('http://127.0.0.1:3499/v1', HOSTS, undefined)).not.toBeNull();
    expect(addressProblem('http://127.0.0.1:3499/v1', HOSTS, 'not an address')).not.toBeNull();
  });

  it('compares addresses without their trailing slashes', () => {
    expect(sameAddress('https://pay.freekassa.com/', 'https://pay.freekassa.com')).toBe(true);
    expect(sameAddress('https://api.yookassa.ru/v3', 'https://api.yookassa.ru/v3/')).toBe(true);
    expect(sameAddress('https://api.yookassa.ru/v3', 'https://api.yookassa.ru/v2')).toBe(false);
    expect(sameAddress(undefined, '')).toBe(true);
  });
});
