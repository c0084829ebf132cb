import { DEFAULT_RCON_PORT } from '@kubik/contract';

/** What the server form holds for RCON: the server's address, RCON's own host and port (empty: the defaults). */
export interface RconFields {
  ip_address: string | undefined;
  rcon_host: string | null | undefined;
  rcon_port: number | null | undefined;
}

/** `host:port` RCON is reached at: its own host, else the server's; its port, else the standard one. Hosts ignore case and a final dot. */
export function rconAddress(f: RconFields): string {
  const host = ((f.rcon_host ?? '').trim() || (f.ip_address ?? '').trim())
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  const port = typeof f.rcon_port === 'number' && Number.isFinite(f.rcon_port) ? f.rcon_port : DEFAULT_RCON_PORT;
  return `${host}:${port}`;
}

/**
 * Whether saving the form moves RCON away from the address its stored password was typed for: the
 * server then drops the password (it is never sent to an address it was not typed for) unless a
 * new one is typed in the same save.
 */
export function rconMoves(saved: RconFields, form: RconFields): boolean {
  return rconAddress(saved) !== rconAddress(form);
}
