/** The account forms' chunk (features/accounts/AuthPages.ts); the import is made once and shared. */
let loading: Promise<typeof import('../features/accounts/AuthPages.ts')> | undefined;
export function loadAuthPages() {
  loading ??= import('../features/accounts/AuthPages.ts');
  return loading;
}
