import { createHash, randomUUID } from 'node:crypto';

/**
 * The UUID an offline-mode Minecraft server gives a player: Java's
 * `UUID.nameUUIDFromBytes(("OfflinePlayer:" + name).getBytes(UTF_8))`, a version 3 (MD5) UUID.
 * Giving site accounts the same UUID lets a server move from offline mode to the site's login
 * and keep every player's inventory. The name is taken as typed: case matters, as in the game.
 */
export function offlineUuid(name: string): string {
  const b = createHash('md5').update(`OfflinePlayer:${name}`, 'utf8').digest();
  b[6] = (b[6]! & 0x0f) | 0x30; // version 3
  b[8] = (b[8]! & 0x3f) | 0x80; // IETF variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The game profile UUID for a new account named `name`: its offline UUID, unless another account
 * holds that already (a renamed or deleted player keeps theirs for good); then a random one.
 */
export async function newProfileUuid(name: string, taken: (uuid: string) => Promise<boolean>): Promise<string> {
  const uuid = offlineUuid(name);
  return (await taken(uuid)) ? randomUUID() : uuid;
}
