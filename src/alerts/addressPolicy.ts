import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** The error a guarded lookup fails with; its message names the address and the setting. */
export const DENIED_ADDRESS = 'EDENIEDADDRESS';

/**
 * SERVICE_WEBHOOK_DENY_CIDRS: address ranges webhooks may not reach. Private and loopback targets
 * are allowed unless listed (DESIGN.md: in-cluster receivers are normal).
 */
export class WebhookAddressPolicy {
  private readonly denied = new BlockList();
  private readonly empty: boolean;

  /**
   * Throws on an entry that is not an address or CIDR range, so a typo cannot silently allow.
   * `resolve` is the system resolver; tests give names addresses of their own.
   */
  constructor(
    cidrs: readonly string[],
    private readonly resolve: typeof systemLookup = systemLookup,
  ) {
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
   * The name lookup of a webhook connection: the system's, failing with DENIED_ADDRESS when the
   * name resolves into a denied range. The connection goes to exactly the addresses checked here,
   * at every connect, so a name that changes its answer in between (DNS rebinding) cannot slip
   * past. Address literals are not looked up: `deniedLiteral` checks those.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const denied = addresses.find((entry) => this.isDenied(entry.address));
      if (denied) {
        const refusal = Object.assign(
          new Error(`${hostname} resolves to ${denied.address}, which is in SERVICE_WEBHOOK_DENY_CIDRS`),
          { code: DENIED_ADDRESS },
        );
        return callback(refusal, '', 0);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
