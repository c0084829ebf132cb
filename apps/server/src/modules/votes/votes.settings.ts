import { VotePrizesBody } from '@kubik/contract';
import { defineSettings } from '../../lib/settings.ts';

/** Prizes (roubles) for places 1…N of a month's top voters; none by default. */
export const VotePrizeSettings = defineSettings({
  key: 'vote_prizes',
  schema: VotePrizesBody,
  defaults: () => ({ prizes: [] }),
});
