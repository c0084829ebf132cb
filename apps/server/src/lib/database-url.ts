const MASK = '•••';

/**
 * A database address without its password, for the owner's eyes: mysql://kubik:•••@db:3306/x.
 * The query string goes too (it may hold a password or a key). In an address URL cannot parse,
 * everything up to the last «@» of the host part is masked, as a password may hold an «@».
 */
export function urlWithoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'MASKED';
    u.search = '';
    // The URL setter would percent-encode the dots.
    return u.toString().replace(':MASKED@', `:${MASK}@`);
  } catch {
    return url.replace(/:\/\/[^/]*@/, `://${MASK}@`);
  }
}
