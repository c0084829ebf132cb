import { SecuritySettingsBody } from '@kubik/contract';
import { defineSettings } from '../../lib/settings.ts';

/** The owner's security settings: whether administrators must use two-factor login. */
export const SecuritySettings = defineSettings({
  key: 'security',
  schema: SecuritySettingsBody,
  defaults: () => ({ require_admin_two_factor: false }),
});
