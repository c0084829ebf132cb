// Console commands sent to game servers over RCON: the rules a command template must follow, the
// same on the admin's form, when saved, and when sent (lib/rcon/command.ts uses these too).

/** Longest template an admin may save. */
export const COMMAND_MAX_CHARS = 500;
/** Minecraft reads a request into a 1460-byte buffer; the command must fit with 14 bytes of header. */
export const COMMAND_MAX_BYTES = 1446;
/** Room kept for each substituted value when a template is checked (a UUID is 36, an item ID up to 100). */
const VALUE_BYTES = 100;

/** Placeholders of shop commands: the server's command template and an item's own commands. */
export const ITEM_COMMAND_PLACEHOLDERS = ['player', 'uuid', 'quantity', 'order', 'item'] as const;

/**
 * Characters no command may hold: control characters (C0, DEL, C1 such as U+0085), line and
 * paragraph separators (U+2028, U+2029), unpaired surrogates, and invisible format characters
 * (zero-width, bidirectional overrides, BOM) an admin could paste without seeing them.
 */
export const FORBIDDEN_IN_COMMAND = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/u;

/** The first forbidden character as U+XXXX, or null. */
export function forbiddenCharacter(text: string): string | null {
  const m = FORBIDDEN_IN_COMMAND.exec(text);
  if (!m) return null;
  return `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The refusal of a forbidden character in a command, or null. */
export function forbiddenProblem(text: string, label = 'Команда'): string | null {
  const bad = forbiddenCharacter(text);
  return bad ? `${label}: недопустимый символ ${bad} — переводы строк, управляющие и невидимые символы в командах запрещены` : null;
}

/** Bytes of the text in UTF-8, as RCON sends it (the contract runs in browsers and Node alike, without TextEncoder's types). */
function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

export interface CommandRules {
  /** Placeholders the command may use, without braces. */
  placeholders: readonly string[];
  /** The command must name its player ({player} or {uuid}). */
  needsPlayer?: boolean;
  /** How the field is called in messages, e.g. «Команда 2». */
  label?: string;
}

/** Why a command template would be refused (now or when sent), in Russian; null when it is fine. */
export function commandProblem(text: string, rules: CommandRules): string | null {
  const label = rules.label ?? 'Команда';
  const bad = forbiddenProblem(text, label);
  if (bad) return bad;
  if (text.trim() === '') return `${label}: введите команду`;
  if (text.length > COMMAND_MAX_CHARS) return `${label}: не длиннее ${COMMAND_MAX_CHARS} символов`;
  const used = [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const unknown = used.find((p) => !rules.placeholders.includes(p));
  if (unknown !== undefined)
    return `${label}: неизвестная подстановка {${unknown}}. Можно: ${rules.placeholders.map((p) => `{${p}}`).join(', ')}`;
  if (rules.needsPlayer && !used.includes('player') && !used.includes('uuid'))
    return `${label}: нужна подстановка {player} или {uuid} — иначе неизвестно, кому выдавать`;
  if (utf8Length(text) + used.length * VALUE_BYTES > COMMAND_MAX_BYTES)
    return `${label}: слишком длинная — вместе с подставленными значениями может не уместиться в ${COMMAND_MAX_BYTES} байт, которые принимает RCON`;
  return null;
}
