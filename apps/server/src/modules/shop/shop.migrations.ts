import type { Migration } from 'kysely';

// Names 2026112230_…. Migrations of the shop feature, merged by db/migrations/index.ts and run in order of name.
export const shopMigrations: Record<string, Migration> = {};
