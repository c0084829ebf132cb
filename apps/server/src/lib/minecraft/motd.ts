/** Formatting codes: §0-9a-f colours, §k-o styles, §r reset, §x the start of a hex colour. */
const SECTION_CODES = /§[0-9a-fk-orx]?/gi;

export function stripFormatting(text: string): string {
  return text.replace(SECTION_CODES, '');
}

/**
 * Plain text of a chat component: a string, an array of components, or an object with text,
 * translate/with and extra. Depth is capped, so a hostile reply cannot recurse us to death.
 */
export function chatToText(component: unknown, depth = 0): string {
  if (depth > 16 || component == null) return '';
  if (typeof component === 'string') return component;
  if (typeof component === 'number' || typeof component === 'boolean') return String(component);
  if (Array.isArray(component)) return component.map((c) => chatToText(c, depth + 1)).join('');
  if (typeof component !== 'object') return '';
  const c = component as { text?: unknown; translate?: unknown; with?: unknown; extra?: unknown; ''?: unknown };
  let out = '';
  if (typeof c.text === 'string' || typeof c.text === 'number') out += String(c.text);
  else if (typeof c[''] === 'string') out += c[''];
  else if (typeof c.translate === 'string') {
    const args = Array.isArray(c.with) ? c.with.map((w) => chatToText(w, depth + 1)) : [];
    let i = 0;
    out += c.translate.replace(/%(?:(\d+)\$)?s/g, (_, n: string | undefined) => args[n ? Number(n) - 1 : i++] ?? '');
  }
  if (Array.isArray(c.extra)) out += c.extra.map((e) => chatToText(e, depth + 1)).join('');
  return out;
}

/** A MOTD for people: formatting removed, lines trimmed, control characters dropped, length capped. */
export function motdToPlain(description: unknown, maxLength = 512): string {
  const text = stripFormatting(chatToText(description))
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join('\n');
  return text.length > maxLength ? text.slice(0, maxLength) : text;
}
