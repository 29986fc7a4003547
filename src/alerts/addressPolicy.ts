import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * SERVICE_WEBHOOK_DENY_CIDRS: address ranges webhooks may not reach. Private and loopback targets
 * are allowed unless listed (DESIGN.md: in-cluster receivers are normal).
 */
export class WebhookAddressPolicy {
  private readonly denied = new BlockList();
  private readonly empty: boolean;

  /** Throws on an entry that is not an address or CIDR range, so a typo cannot silently allow. */
  constructor(cidrs: readonly string[]) {
    this.empty = cidrs.length === 0;
    for (const entry of cidrs) {
      const [address = '', prefix] = entry.split('/');
      const family = isIP(address);
      const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
      if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32)) {
        throw new Error(`SERVICE_WEBHOOK_DENY_CIDRS: "${entry}" is not an address or CIDR range`);
      }
      this.denied.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
    }
  }

  isDenied(address: string): boolean {
    if (this.empty) return false;
    const family = isIP(address);
    if (family === 4) return this.denied.check(address, 'ipv4');
    if (family !== 6) return false;
    if (this.denied.check(address, 'ipv6')) return true;
    // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) reaches the IPv4 host.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    return mapped !== undefined && this.denied.check(mapped, 'ipv4');
  }

  /** The denied address when the URL's host is an address literal in a denied range (API check). */
  deniedLiteral(url: URL): string | null {
    const host = hostOf(url);
    return isIP(host) && this.isDenied(host) ? host : null;
  }

  /**
   * The first denied address the URL's host resolves to, or null. Checked before every send, since
   * a name may resolve differently from one day to the next.
   */
  async deniedAddress(url: URL): Promise<string | null> {
    if (this.empty) return null;
    const host = hostOf(url);
    if (isIP(host)) return this.isDenied(host) ? host : null;
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.find((entry) => this.isDenied(entry.address))?.address ?? null;
  }
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
