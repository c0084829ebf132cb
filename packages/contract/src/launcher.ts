import { z } from 'zod';
import { isSafeImageUrl } from './news.ts';

// The launcher builds /help offers (Админ-панель → Лаунчер): an uploaded file or a link per platform.

export const LAUNCHER_PLATFORMS = ['windows', 'linux', 'macos', 'jar'] as const;
export type LauncherPlatform = (typeof LAUNCHER_PLATFORMS)[number];

/** What each platform is called, which file it takes (by the name's ending) and what the file input offers. */
export const LAUNCHER_PLATFORM_INFO: Record<LauncherPlatform, { label: string; ext: string; kind: string }> = {
  windows: { label: 'Windows', ext: '.exe', kind: 'установщик .exe' },
  linux: { label: 'Linux', ext: '.AppImage', kind: 'AppImage' },
  macos: { label: 'macOS', ext: '.dmg', kind: 'образ .dmg' },
  jar: { label: 'Любая система (Java)', ext: '.jar', kind: 'файл .jar, нужна Java' },
};

/** Default size limit of one uploaded build (LAUNCHER_MAX_MB changes it). */
export const LAUNCHER_DEFAULT_MAX_MB = 300;

export const LAUNCHER_TEXTS = {
  notMultipart: 'Отправьте файл лаунчера формой multipart/form-data в поле «file»',
  noFile: 'Выберите файл лаунчера',
  badForm: 'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
  unknownField: 'В форме загрузки есть лишние поля: нужен только файл «file»',
  oneFile: 'Загрузите один файл',
  tooBig: (maxBytes: number) => `Файл слишком большой: не больше ${formatFileSize(maxBytes)}`,
  wrongType: (platform: LauncherPlatform) =>
    `Для ${LAUNCHER_PLATFORM_INFO[platform].label} нужен файл ${LAUNCHER_PLATFORM_INFO[platform].ext}`,
  notExecutable: (platform: LauncherPlatform) =>
    `Файл не похож на ${LAUNCHER_PLATFORM_INFO[platform].kind}: проверьте, что выбран нужный файл`,
  uploaded: 'Файл лаунчера загружен',
  linked: 'Ссылка на лаунчер сохранена',
  hidden: 'Лаунчер для этой системы больше не показывается',
  reset: 'Для этой системы снова действуют ссылки из настроек',
} as const;

export const LauncherPlatformParams = z.object({
  platform: z.enum(LAUNCHER_PLATFORMS, { error: 'Неизвестная система: windows, linux, macos или jar' }),
});

const version = z
  .string({ error: 'Версия: введите версию' })
  .trim()
  .min(1, 'Версия: введите версию')
  .max(32, 'Версия: не длиннее 32 символов')
  .refine((v) => !/[\p{Cc}]/u.test(v), 'Версия: недопустимые символы');

/** The upload's version, in the address: the file streams to disk, so nothing is read after it. */
export const LauncherUploadQuery = z.strictObject({ version });

export const LauncherLinkBody = z.strictObject({
  version,
  url: z
    .string({ error: 'Ссылка: введите ссылку' })
    .trim()
    .min(1, 'Ссылка: введите ссылку')
    .max(2048, 'Ссылка: слишком длинная ссылка')
    .refine((v) => isSafeImageUrl(v), 'Ссылка: должна начинаться с https://, http:// или / (путь на сайте)'),
});
export type LauncherLinkBody = z.infer<typeof LauncherLinkBody>;

/** One build /help offers. */
export const LauncherBuild = z.object({
  platform: z.enum(LAUNCHER_PLATFORMS),
  version: z.string(),
  /** A path on this site (/downloads/launcher/<platform>/<file>) or an external address. */
  url: z.string(),
  /** 'file': uploaded here (size and sha256 known); 'link': an address the owner gave. */
  kind: z.enum(['file', 'link']),
  file_name: z.string().nullable(),
  size: z.number().nullable(),
  sha256: z.string().nullable(),
  uploaded_at: z.string().nullable(),
});
export type LauncherBuild = z.infer<typeof LauncherBuild>;

export const LauncherList = z.object({ builds: z.array(LauncherBuild) });
export type LauncherList = z.infer<typeof LauncherList>;

/** What the admin sees per platform, shown on /help or not. */
export const AdminLauncherPlatform = z.object({
  platform: z.enum(LAUNCHER_PLATFORMS),
  /**
   * file/link: set on this page; settings: no entry here, the link of Настройки (or LAUNCHER_* variables)
   * is used; hidden: removed on this page; none: nothing to show.
   */
  source: z.enum(['file', 'link', 'settings', 'hidden', 'none']),
  build: LauncherBuild.nullable(),
  /** The file (or the /downloads/ path of a link) is not on this instance's disk: /help hides it. */
  missing: z.boolean(),
});
export type AdminLauncherPlatform = z.infer<typeof AdminLauncherPlatform>;

export const AdminLauncher = z.object({ platforms: z.array(AdminLauncherPlatform), max_bytes: z.number() });
export type AdminLauncher = z.infer<typeof AdminLauncher>;

/** «48,2 МБ»: a file size in Russian units, one decimal from megabytes up. */
export function formatFileSize(bytes: number): string {
  const units = ['Б', 'КБ', 'МБ', 'ГБ'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 ? String(value) : (Math.round(value * 10) / 10).toFixed(1).replace(/\.0$/, '').replace('.', ',');
  return `${text} ${units[unit]}`;
}

/** DELETE /api/admin/launcher/:platform: hide the platform, or (?reset=1) let Настройки speak for it again. */
export const LauncherRemoveQuery = z.strictObject({ reset: z.enum(['1'], { error: 'reset: только 1' }).optional() });
