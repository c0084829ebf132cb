import type { Migration } from 'kysely';

// Names 2026112210_…. Migrations of the news feature, merged by db/migrations/index.ts and run in order of name.
export const newsMigrations: Record<string, Migration> = {};
