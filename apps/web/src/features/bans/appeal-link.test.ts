import type { PublicBan } from '@kubik/contract';
import { describe, expect, it } from 'vitest';
import { appealLink } from './appeal-link.ts';

const ban = (over: Partial<PublicBan>): PublicBan => ({
  source: 'litebans',
  kind: 'ban',
  username: 'Steve',
  reason: '',
  by: null,
  since: Date.UTC(2026, 11, 1, 9, 0),
  until: null,
  active: true,
  server: null,
  ...over,
});

describe('«Обжаловать» on /bans', () => {
  it('sends a site ban to the appeal page, which tells the banned player how to get the link', () => {
    expect(appealLink(ban({ source: 'site' }), null)).toBe('/support/appeal');
  });
  it("offers a game plugin's ban or mute to its own player only, as a ticket naming it", () => {
    expect(appealLink(ban({}), null)).toBeNull();
    expect(appealLink(ban({}), 'Alex')).toBeNull();
    const link = appealLink(ban({}), 'steve');
    expect(link).toMatch(/^\/support\/new\?subject=/);
    expect(decodeURIComponent(link!.split('=')[1]!)).toMatch(/^Обжалование бана от 01\.12\.2026/);
    expect(decodeURIComponent(appealLink(ban({ kind: 'mute' }), 'Steve')!)).toMatch(/мута/);
  });
  it('offers nothing for a lifted punishment, a kick or a warning', () => {
    expect(appealLink(ban({ active: false, source: 'site' }), null)).toBeNull();
    expect(appealLink(ban({ kind: 'kick' }), 'Steve')).toBeNull();
    expect(appealLink(ban({ kind: 'warning' }), 'Steve')).toBeNull();
  });
});
