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

  /** True when a connection to `address` reaches a denied range. */
  isDenied(address: string): boolean {
    if (this.empty) return false;
    return reachedAddresses(address).some((reached) =>
      this.denied.check(reached, isIP(reached) === 6 ? 'ipv6' : 'ipv4'),
    );
  }

  /**
   * The last line of defence, for the address a socket really connected to: the denied address, or
   * null. A lookup or URL spelling that slipped past the checks above still cannot send a byte.
   */
  deniedRemote(remoteAddress: string | undefined): string | null {
    return remoteAddress && this.isDenied(remoteAddress) ? remoteAddress : null;
  }

  /** The denied address when the URL's host is an address literal in a denied range. */
  deniedLiteral(url: URL): string | null {
    const host = hostOf(url);
    return isIP(host) && this.isDenied(host) ? host : null;
  }

  /**
   * The API check: the denied address the URL's host is or resolves to, or null. A name that does
   * not resolve now is let through; delivery checks it again at every connect.
   */
  async deniedTarget(url: URL): Promise<string | null> {
    if (this.empty) return null;
    const host = hostOf(url);
    if (isIP(host)) return this.isDenied(host) ? host : null;
    const addresses = await new Promise<LookupAddress[]>((resolve) =>
      this.resolve(host, { all: true }, (error, found: LookupAddress[]) => resolve(error ? [] : found)),
    );
    return addresses.find((entry) => this.isDenied(entry.address))?.address ?? null;
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

/**
 * The addresses a connection to `address` really reaches. WHATWG URLs turn `0`, `0x7f000001`,
 * `2130706433` and `127.1` into dotted quads, but the unspecified addresses stay: on Linux a connect
 * to 0.0.0.0/8 or `::` reaches this host (loopback), and an IPv4-mapped IPv6 address reaches its
 * IPv4 host.
 */
function reachedAddresses(address: string): string[] {
  const family = isIP(address);
  if (family === 4) return [address.startsWith('0.') ? '127.0.0.1' : address, address];
  if (family !== 6) return [];
  const mapped = mappedIPv4(address);
  if (mapped) return [...reachedAddresses(mapped), address];
  if (/^[0:]+$/.test(address)) return ['::1', '127.0.0.1', address];
  return [address];
}

/** `::ffff:10.0.0.1` or `::ffff:a00:1` (how URLs write it) as `10.0.0.1`, else null. */
function mappedIPv4(address: string): string | null {
  const dotted = /^(?:0{0,4}:){0,5}ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^(?:0{0,4}:){0,5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex?.[1] || !hex[2]) return null;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
