import type { Migration } from 'kysely';

// Names 2026112240_…. Migrations of the skins feature, merged by db/migrations/index.ts and run in order of name.
export const skinsMigrations: Record<string, Migration> = {};
