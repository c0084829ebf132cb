const RU_PLURALS = new Intl.PluralRules('ru-RU');

/**
 * The Russian form of a word for n: [one, few, many] as in «1 минуту», «3 минуты», «5 минут»
 * (21 takes one, 22–24 few, 11–14 many; a fraction takes few, «1,5 минуты»).
 */
export function plural(n: number, [one, few, many]: readonly [string, string, string]): string {
  const rule = RU_PLURALS.select(n);
  return rule === 'one' ? one : rule === 'many' ? many : few;
}
