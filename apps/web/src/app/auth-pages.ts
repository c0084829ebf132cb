import type * as AuthPages from '../features/accounts/AuthPages.ts';

/** The account forms' chunk (features/accounts/AuthPages.ts); the import is made once and shared. */
let loading: Promise<typeof AuthPages> | undefined;
export function loadAuthPages(): Promise<typeof AuthPages> {
  loading ??= import('../features/accounts/AuthPages.ts');
  return loading;
}
