/**
 * Addresses of outside services typed in the admin (a payment provider's API or form, a social
 * login's base address). The site sends its keys for that service there, so whoever may change
 * one could otherwise have the keys sent to a listener of their own, or have a payment «paid» by
 * a double of their own (a staff member with `settings`, say). Hence:
 * - only the owner changes one (the caller checks; staff get 403 `owner_only`);
 * - a typed address is https on one of the service's own hosts, at its default port, without a
 *   user name — or exactly the origin (scheme, host, port) the environment names for it. The
 *   environment is the operator's own word, which may be anything: tests point it at doubles on
 *   http://127.0.0.1, a site may go through a proxy of its own. An address from the browser is
 *   trusted no further than the service's host;
 * - a change drops the secrets stored for the service, so a key is never sent to a host it was
 *   not typed for (the caller does it in the same transaction).
 * An address stored before these rules that breaks them is not used (the environment's applies).
 */

/** `https://host/path` → `https://host/path` without trailing slashes, for comparing two addresses. */
export function normalAddress(value: string): string {
  return value.trim().replace(/\/+$/, '');
}

export function sameAddress(a: string | undefined, b: string | undefined): boolean {
  return normalAddress(a ?? '') === normalAddress(b ?? '');
}

function originOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * Why `value` may not be used as the service's address (Russian, for the field), or null when it
 * may: https on one of `hosts`, or the origin of `envUrl` (the environment's address for it).
 */
export function addressProblem(value: string, hosts: readonly string[], envUrl: string | undefined): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return 'Адрес должен начинаться с https://';
  }
  const envOrigin = originOf(envUrl);
  if (envOrigin !== null && url.origin === envOrigin && !url.username && !url.password) return null;
  if (url.protocol !== 'https:') return 'Адрес должен начинаться с https://';
  if (url.username || url.password || url.port !== '' || !hosts.includes(url.hostname))
    return `Адрес должен вести на ${hosts.join(' или ')}`;
  return null;
}

/** The refusal of a staff member's change of such an address (403 owner_only), beside the field. */
export const OWNER_ONLY_ADDRESS = 'Этот адрес меняет только владелец сайта: на него сайт отправляет ключи';
