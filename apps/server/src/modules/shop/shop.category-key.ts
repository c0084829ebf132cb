/** A category's identity: its name lower-cased (Cyrillic too, which SQLite's lower() does not know). */
export function categoryKey(name: string): string {
  return name.trim().toLocaleLowerCase('ru-RU').replaceAll('ё', 'е');
}
