import { ITEM_ID_RE, USERNAME_RE } from '@kubik/contract';
import { MAX_REQUEST_BODY } from './packet.ts';

export const DEFAULT_COMMAND_TEMPLATE = 'give {player} minecraft:{item} {quantity}';

export interface CommandValues {
  /** The player's username. */
  player: string;
  /** item_id_minecraft of the item. */
  item: string;
  quantity: number;
  /** Order number. */
  order: number;
}

/** A command that must not be sent; the message says why, in Russian, for the admin. */
export class CommandError extends Error {}

// Any control character would let a value end the command and start another one.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Fills {player}, {item}, {quantity} and {order} into a server's command template. Every value is
 * checked against a strict pattern first and substituted in one pass, so no value can add a second
 * command, a newline or another placeholder.
 */
export function renderCommand(template: string | null | undefined, values: CommandValues): string {
  let tpl = (template ?? '').trim() || DEFAULT_COMMAND_TEMPLATE;
  if (CONTROL.test(tpl)) throw new CommandError('Шаблон команды содержит перевод строки или управляющие символы');
  if (tpl.length > 500) throw new CommandError('Шаблон команды длиннее 500 символов');
  if (!USERNAME_RE.test(values.player)) throw new CommandError(`Недопустимое имя игрока: ${JSON.stringify(values.player.slice(0, 40))}`);
  if (!ITEM_ID_RE.test(values.item)) throw new CommandError(`Недопустимый Minecraft ID: ${JSON.stringify(values.item.slice(0, 120))}`);
  if (!Number.isSafeInteger(values.quantity) || values.quantity < 1) throw new CommandError('Недопустимое количество');
  if (!Number.isSafeInteger(values.order) || values.order < 1) throw new CommandError('Недопустимый номер заказа');
  // A namespaced id (mymod:gem) already names its namespace; `minecraft:mymod:gem` would be wrong.
  if (values.item.includes(':')) tpl = tpl.replaceAll('minecraft:{item}', '{item}');
  const map: Record<string, string> = { player: values.player, item: values.item, quantity: String(values.quantity), order: String(values.order) };
  const command = tpl.replace(/\{(player|item|quantity|order)\}/g, (_, name: string) => map[name]!);
  if (Buffer.byteLength(command, 'utf8') > MAX_REQUEST_BODY) throw new CommandError('Команда длиннее 1400 байт');
  return command;
}

export type ReplyVerdict = 'done' | 'failed' | 'offline';

// Replies of vanilla Minecraft (and common Russian translations) that mean the command did nothing.
const OFFLINE = [/no player was found/i, /player not found/i, /игрок не найден/i, /игрок не в сети/i, /is not online/i];
const FAILED = [
  /unknown or incomplete command/i,
  /incorrect argument for command/i,
  /unknown item/i,
  /unknown command/i,
  /can't give more than/i,
  /^expected\b/i,
  /^invalid\b/i,
  /^an unexpected error occurred/i,
  /неизвестная команда/i,
  /неизвестный предмет/i,
];

/** What the server's answer means for the delivery: done, refused, or the player is not in the game. */
export function judgeReply(reply: string): ReplyVerdict {
  const text = reply.trim();
  if (OFFLINE.some((re) => re.test(text))) return 'offline';
  if (FAILED.some((re) => re.test(text))) return 'failed';
  return 'done';
}
