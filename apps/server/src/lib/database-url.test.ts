import { describe, expect, it } from 'vitest';
import { urlWithoutPassword } from './database-url.ts';

describe('a database address shown to the owner', () => {
  it('masks the password and drops the query string', () => {
    expect(urlWithoutPassword('mysql://kubik:s3cret@db:3306/authme?password=x')).toBe('mysql://kubik:•••@db:3306/authme');
    expect(urlWithoutPassword('postgres://reader@127.0.0.1/litebans')).toBe('postgres://reader@127.0.0.1/litebans');
  });

  it('masks what stands before «@» in an address URL cannot read', () => {
    const shown = urlWithoutPassword('mysql://kubik:p@ss word@db:99999/x');
    expect(shown).not.toContain('ss word');
    expect(shown).toContain('•••@');
  });
});
