import { describe, expect, it } from 'vitest';
import { newProfileUuid, offlineUuid } from './offline-uuid.ts';

describe('offline-mode UUID', () => {
  it('matches Java’s UUID.nameUUIDFromBytes("OfflinePlayer:" + name)', () => {
    // Printed by OpenJDK 17's java.util.UUID.nameUUIDFromBytes(("OfflinePlayer:" + n).getBytes(UTF_8)).
    expect(offlineUuid('Notch')).toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
    expect(offlineUuid('jeb_')).toBe('a762f560-4fce-3236-812a-b80efff0b62b');
    expect(offlineUuid('Steve')).toBe('5627dd98-e6be-3c21-b8a8-e92344183641');
    expect(offlineUuid('a_b_C123')).toBe('4c427720-ac53-328b-9fbd-126c8df6bc6e');
    // UTF-8, as Java's getBytes(UTF_8).
    expect(offlineUuid('Игрок')).toBe('770c6db4-4435-39fa-8907-9b7f4fb309b1');
  });

  it('is a version 3 UUID of the IETF variant, and case matters as in the game', () => {
    expect(offlineUuid('steve')).not.toBe(offlineUuid('Steve'));
    for (const name of ['steve', 'x', 'Player_123'])
      expect(offlineUuid(name)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('a new account gets a random UUID when another account holds its name’s offline UUID', async () => {
    expect(await newProfileUuid('Notch', async () => false)).toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
    const other = await newProfileUuid('Notch', async (u) => u === 'b50ad385-829d-3141-a216-7e7d7539ba7f');
    expect(other).not.toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
    expect(other).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
  });
});
