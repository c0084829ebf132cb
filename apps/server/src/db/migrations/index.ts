import type { Migration } from 'kysely';
import * as m2026112201 from './2026112201_accounts.ts';

/** Every migration, in order of name. A landed migration is never edited: add a new one. */
export const migrations: Record<string, Migration> = {
  '2026112201_accounts': m2026112201,
};
