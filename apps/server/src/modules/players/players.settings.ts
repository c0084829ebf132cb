import { HomeSettings } from '@kubik/contract';
import { defineSettings } from '../../lib/settings.ts';

/** The home page's widgets the owner shows: both on until turned off. */
export const HomeSettingsDoc = defineSettings({
  key: 'home',
  schema: HomeSettings,
  defaults: () => ({ recent_purchases: true, top_donors: true }),
});
