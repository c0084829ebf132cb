/**
 * A browser's User-Agent in words a player recognises: «Chrome 120, Windows», «Safari, iPhone»,
 * «Программа: curl». Only the well-known browsers and systems are named; anything else is told
 * as it is, cut short. (A full parser such as ua-parser-js is AGPL since version 2, and the
 * sessions list needs only this much.)
 */
const BROWSERS: [RegExp, string][] = [
  [/YaBrowser\/(\d+)/, 'Яндекс Браузер'],
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/SamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/(?:Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[.\d]* (?:Mobile\/\w+ )?Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
];

const PROGRAMS = /^(curl|Wget|python-requests|Python-urllib|node-fetch|undici|axios|okhttp|Java|Go-http-client|PostmanRuntime|insomnia)\b/i;

export function deviceName(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? '').trim();
  if (!ua) return 'Неизвестное устройство';
  const program = PROGRAMS.exec(ua);
  if (program) return `Программа: ${program[1]}`;
  let browser: string | null = null;
  for (const [re, name] of BROWSERS) {
    const m = re.exec(ua);
    if (m) {
      browser = name === 'Safari' ? name : `${name} ${m[1]}`;
      break;
    }
  }
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1] ?? null;
  if (browser && system) return `${browser}, ${system}`;
  if (browser || system) return (browser ?? system)!;
  // Keep only printable characters: this text goes into letters and pages.
  const cleaned = ua.replace(/[^\x20-\x7e]/g, '').slice(0, 60);
  return cleaned ? `Программа: ${cleaned}` : 'Неизвестное устройство';
}
