import type { AnnounceChannel } from '@kubik/contract';
import { TEXT_LIMITS } from './announce.providers.ts';

/**
 * A template filled for one channel. What players typed (names, titles, subjects) is made inert
 * there: Discord's markdown characters are escaped in the values (mentions are off in the send
 * itself), Telegram's text is HTML-escaped whole (it goes with parse_mode HTML, so a `<b>` in a
 * title or template shows as `<b>`), VK takes plain text. An unknown `{placeholder}` stays as typed.
 */
export function render(channel: AnnounceChannel, template: string, values: Record<string, string>): string {
  // The site's own links stay as they are: an escaped `_` would break them.
  const value = (name: string, v: string) =>
    channel === 'discord' && name !== 'url' ? v.replace(/[\\*_~`|>#[\]()<]/g, (c) => `\\${c}`) : v;
  let text = template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? value(name, values[name]!) : whole));
  text = text
    .replace(/\r\n?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const limit = TEXT_LIMITS[channel];
  if (text.length > limit) text = `${text.slice(0, limit - 1)}…`;
  if (channel === 'telegram') {
    text = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    // Escaping lengthens the text; the Bot API counts what is left after the entities are parsed.
  }
  return text;
}
