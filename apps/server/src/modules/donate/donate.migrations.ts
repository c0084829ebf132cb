import type { Migration } from 'kysely';

// Names 2026112215_…. Migrations of the donate feature, merged by db/migrations/index.ts and run in order of name.
export const donateMigrations: Record<string, Migration> = {};
