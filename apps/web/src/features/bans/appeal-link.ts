import type { PublicBan } from '@kubik/contract';
import { formatDateTime } from '../../lib/format.ts';

/** What the appeal of a row is: the site's ban by the signed link's page, a game plugin's by a ticket. */
export function appealLink(b: PublicBan, signedInAs: string | null): string | null {
  if (!b.active || (b.kind !== 'ban' && b.kind !== 'mute')) return null;
  // A player banned on the site cannot sign in: /support/appeal tells how to get the appeal link at login.
  if (b.source === 'site') return '/support/appeal';
  if (!signedInAs || signedInAs.toLowerCase() !== b.username.toLowerCase()) return null;
  const what = b.kind === 'ban' ? 'бана' : 'мута';
  return `/support/new?subject=${encodeURIComponent(`Обжалование ${what} от ${formatDateTime(b.since)}`)}`;
}
