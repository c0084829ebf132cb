import { commandProblem, DEFAULT_COMMAND_TEMPLATE, ITEM_ID_RE, USERNAME_RE } from '@kubik/contract';

export { DEFAULT_COMMAND_TEMPLATE };

/** Values other than the player's: {item}, {quantity}, {order}, {tier}, {days}, {expires}, … */
export type CommandParams = Record<string, string | number>;

export interface CommandValues {
  /** The player's username (null: the delivery has no player; {player} is then refused). */
  player: string | null;
  /** The player's UUID, when the account has one. */
  uuid?: string | null;
  params: CommandParams;
}

/** A command that must not be sent; the message says why, in Russian, for the admin. */
export class CommandError extends Error {}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A free-form value ({tier}, {expires}, …): one word of letters, digits and _ . : + - — nothing that could end the command or add an argument. */
const WORD_RE = /^[\p{L}\p{N}_.:+-]{1,64}$/u;
/**
 * {reason} (a ban's reason) is the one value with spaces: it is the last, greedy argument of every
 * ban command (vanilla, Essentials, LiteBans). Letters, digits, spaces and plain punctuation only —
 * no slash, quote, brace, backslash, @ or § — so it can neither start a command nor form a selector;
 * it starts with a letter or digit and no word starts with - or +, so it cannot pass a plugin's flag (`-s`).
 */
const REASON_RE = /^(?!.* [-+])[\p{L}\p{N}][\p{L}\p{N}_.,:;!?()+\- ]{0,119}$/u;

/** A ban reason made safe for {reason}: anything else becomes a space; never empty. */
export function commandReason(text: string): string {
  const cleaned = text
    .replace(/[^\p{L}\p{N}_.,:;!?()+\- ]/gu, ' ')
    // No word may start with - or + (plugins' flags: LiteBans' -s anywhere in the arguments).
    .replace(/(^| )[-+]+/g, '$1')
    .replace(/ +/g, ' ')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .slice(0, 120)
    .trim();
  return cleaned === '' ? 'Нарушение правил' : cleaned;
}

/** Why a parameter value would be unsafe in a command, or null. Callers of enqueueDelivery are checked with it too. */
export function paramProblem(name: string, value: string | number): string | null {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) return `Недопустимое значение {${name}}: ${value}`;
    if ((name === 'quantity' || name === 'order') && value < 1)
      return name === 'quantity' ? 'Недопустимое количество' : 'Недопустимый номер заказа';
    return null;
  }
  if (name === 'item') return ITEM_ID_RE.test(value) ? null : `Недопустимый Minecraft ID: ${JSON.stringify(value.slice(0, 120))}`;
  if (name === 'quantity' || name === 'order') return `Недопустимое значение {${name}}: должно быть числом`;
  if (name === 'reason')
    return REASON_RE.test(value) && value.trim() === value
      ? null
      : `Недопустимая причина: ${JSON.stringify(value.slice(0, 80))} — буквы, цифры, пробелы и знаки препинания`;
  return WORD_RE.test(value)
    ? null
    : `Недопустимое значение {${name}}: ${JSON.stringify(value.slice(0, 80))} — одно слово из букв, цифр и _ . : + -`;
}

/**
 * Fills a command template. The template obeys the same rules it was saved under (no control or
 * invisible characters, known placeholders only), every value is checked against a strict pattern,
 * and substitution is one pass: no value can add a second command, a newline or a placeholder.
 */
export function renderCommand(template: string | null | undefined, values: CommandValues): string {
  let tpl = (template ?? '').trim() || DEFAULT_COMMAND_TEMPLATE;
  const names = ['player', 'uuid', ...Object.keys(values.params)];
  const problem = commandProblem(tpl, { placeholders: names, label: 'Шаблон команды' });
  if (problem) throw new CommandError(problem);
  if (tpl.includes('{player}') && !(values.player !== null && USERNAME_RE.test(values.player)))
    throw new CommandError(`Недопустимое имя игрока: ${JSON.stringify((values.player ?? '').slice(0, 40))}`);
  if (tpl.includes('{uuid}') && !(values.uuid && UUID_RE.test(values.uuid)))
    throw new CommandError('У игрока нет UUID: команда с {uuid} не может быть выполнена');
  for (const [name, value] of Object.entries(values.params)) {
    if (!tpl.includes(`{${name}}`)) continue;
    const p = paramProblem(name, value);
    if (p) throw new CommandError(p);
  }
  const item = values.params.item;
  // A namespaced id (mymod:gem) already names its namespace; `minecraft:mymod:gem` would be wrong.
  if (typeof item === 'string' && item.includes(':')) tpl = tpl.replaceAll('minecraft:{item}', '{item}');
  const map: Record<string, string> = { player: values.player ?? '', uuid: values.uuid ?? '' };
  for (const [name, value] of Object.entries(values.params)) map[name] = String(value);
  const command = tpl.replace(/\{(\w+)\}/g, (whole, name: string) => map[name] ?? whole);
  if (Buffer.byteLength(command, 'utf8') > 1446) throw new CommandError('Команда длиннее 1446 байт: столько RCON не принимает');
  return command;
}

export type ReplyVerdict = 'done' | 'failed' | 'offline';

// Replies of vanilla Minecraft, Bukkit and common plugins (and Russian translations) that mean the command did nothing.
const OFFLINE = [
  /no player was found/i,
  /player not found/i,
  /that player (?:is not|isn't) online/i,
  /игрок не найден/i,
  /игрок не в сети/i,
  /is not online/i,
];
const FAILED = [
  /unknown or incomplete command/i,
  /incorrect argument for command/i,
  /unknown item/i,
  /unknown command/i,
  /can't give more than/i,
  /^expected\b/i,
  /^invalid\b/i,
  /^an unexpected error occurred/i,
  /^error executing:/i,
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
