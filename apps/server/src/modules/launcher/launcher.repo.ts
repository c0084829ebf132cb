import type { LauncherPlatform } from '@kubik/contract';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { LauncherBuildsTable } from './launcher.tables.ts';

/** A platform's entry as /help offers it. */
export type LauncherBuildRow = Pick<
  Selectable<LauncherBuildsTable>,
  'platform' | 'kind' | 'version' | 'url' | 'file_name' | 'size' | 'sha256' | 'updated_at'
>;

/** What the audit log and the clean-up of an old file need of an entry. */
const ENTRY = ['kind', 'version', 'url', 'file_name', 'size', 'sha256'] as const;

export function listBuilds(db: Db): Promise<LauncherBuildRow[]> {
  return db
    .selectFrom('launcher_builds')
    .select(['platform', 'kind', 'version', 'url', 'file_name', 'size', 'sha256', 'updated_at'])
    .execute();
}

export function findEntry(db: Db, platform: LauncherPlatform) {
  return db.selectFrom('launcher_builds').select(ENTRY).where('platform', '=', platform).executeTakeFirst();
}

export async function saveEntry(db: Db, platform: LauncherPlatform, row: Omit<Selectable<LauncherBuildsTable>, 'platform'>): Promise<void> {
  await db
    .insertInto('launcher_builds')
    .values({ platform, ...row })
    .onConflict((oc) => oc.column('platform').doUpdateSet(row))
    .execute();
}

/** Forgets the platform's entry; what it was, or undefined when there was none. */
export function deleteEntry(db: Db, platform: LauncherPlatform) {
  return db.deleteFrom('launcher_builds').where('platform', '=', platform).returning(ENTRY).executeTakeFirst();
}
