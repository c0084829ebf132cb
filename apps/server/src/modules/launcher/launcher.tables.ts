import type { LauncherPlatform } from '@kubik/contract';

/**
 * The launcher build /help offers per platform, set in Админ-панель → Лаунчер. A platform without
 * a row falls back to the links of Настройки (LAUNCHER_* variables); 'hidden' hides it.
 * An uploaded file lives on disk in DATA_DIR/downloads/launcher/<platform>/<file_name>.
 */
export interface LauncherBuildsTable {
  platform: LauncherPlatform;
  kind: 'file' | 'link' | 'hidden';
  version: string;
  /** 'link': the address given; 'file': null (the address follows from the file name). */
  url: string | null;
  file_name: string | null;
  size: number | null;
  sha256: string | null;
  updated_by: number | null;
  updated_at: number;
}

export interface LauncherTables {
  launcher_builds: LauncherBuildsTable;
}
