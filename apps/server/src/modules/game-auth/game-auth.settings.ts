import { GameLoginSettingsBody } from '@kubik/contract';
import { defineSettings } from '../../lib/settings.ts';

/** The owner's settings of game login: the name launchers show, and the words on /help «Вход в игру». */
export const GameLoginSettings = defineSettings({
  key: 'game_login',
  schema: GameLoginSettingsBody,
  defaults: (config) => ({ server_name: config.siteName, help_text: '' }),
});
