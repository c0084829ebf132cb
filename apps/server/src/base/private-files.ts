import fs from 'node:fs';

/**
 * The site's data (the SQLite database and its journal, letters in mail/, backups, downloads)
 * is readable only by the site's own user: directories 0700, files 0600. main.ts and the
 * command-line tools also set umask 077, so whatever a library creates is private too; the
 * modes here are set explicitly as well, because tests and embedders do not go through main.ts.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates dir (and missing parents) as 0700. An existing directory keeps its mode (the owner may
 * have chosen it) unless `narrow`: then one owned by the site's user is made 0700 too.
 */
export function ensurePrivateDir(dir: string, narrow = false): void {
  const existed = fs.existsSync(dir);
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (!existed) fs.chmodSync(dir, PRIVATE_DIR_MODE);
  else if (narrow) makePrivate(dir, PRIVATE_DIR_MODE);
}

/** Narrows a file (and an existing directory the site owns) to the site's user; missing files are skipped. */
export function makePrivate(file: string, mode = PRIVATE_FILE_MODE): void {
  try {
    const st = fs.statSync(file);
    if ((st.mode & 0o777) !== mode && st.uid === process.getuid?.()) fs.chmodSync(file, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Sets umask 077 for this process: files and directories it creates are private unless a mode says otherwise. */
export function privateUmask(): void {
  process.umask(0o077);
}
