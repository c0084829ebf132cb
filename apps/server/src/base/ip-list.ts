import net from 'node:net';

/** Addresses and CIDR ranges (IPv4 and IPv6), e.g. YooKassa's published notification senders. */
export function ipList(entries: string[]): (ip: string) => boolean {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = net.isIPv6(address!) ? 'ipv6' : net.isIPv4(address!) ? 'ipv4' : null;
    if (!type) throw new Error(`not an IP address or range: ${entry}`);
    if (bits === undefined) list.addAddress(address!, type);
    else {
      const prefix = Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (type === 'ipv4' ? 32 : 128)) throw new Error(`not an IP range: ${entry}`);
      list.addSubnet(address!, prefix, type);
    }
  }
  return (ip) => {
    // An IPv4 client seen on a dual-stack socket arrives as ::ffff:a.b.c.d.
    const plain = ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
    const type = net.isIPv4(plain) ? 'ipv4' : net.isIPv6(plain) ? 'ipv6' : null;
    return type !== null && list.check(plain, type);
  };
}
