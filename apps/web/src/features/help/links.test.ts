import { describe, expect, it } from 'vitest';
import { isUsefulLink } from './links.ts';

describe('isUsefulLink', () => {
  it('hides empty links and bare home pages of services, keeps real ones', () => {
    expect(isUsefulLink('')).toBe(false);
    expect(isUsefulLink('https://vk.com/')).toBe(false);
    expect(isUsefulLink('https://t.me')).toBe(false);
    expect(isUsefulLink('https://vk.com/kubik')).toBe(true);
    expect(isUsefulLink('https://discord.gg/abc')).toBe(true);
    expect(isUsefulLink('/p/contacts')).toBe(true);
  });
});
