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
 * to 0.0.0.0/8 or `::` reaches this host (loopback). An IPv6 address that carries an IPv4 one
 * (`carriedIPv4`) may reach that IPv4 host, through the host's stack or a translator on the way:
 * it is checked as both.
 */
function reachedAddresses(address: string): string[] {
  const family = isIP(address);
  if (family === 4) return [address.startsWith('0.') ? '127.0.0.1' : address, address];
  if (family !== 6) return [];
  const groups = ipv6Groups(address);
  if (groups.every((group) => group === 0)) return ['::1', '127.0.0.1', address];
  const carried = carriedIPv4(groups);
  return carried ? [...reachedAddresses(carried), address] : [address];
}

/**
 * The IPv4 address an IPv6 address carries, as a dotted quad, or null:
 * - IPv4-compatible `::a.b.c.d` (::/96) and IPv4-mapped `::ffff:a.b.c.d` (::ffff:0:0/96): the last
 *   32 bits, which the host's own stack connects to;
 * - IPv4-translated `::ffff:0:a.b.c.d` (::ffff:0:0:0/96, SIIT) and NAT64 `64:ff9b::a.b.c.d`
 *   (64:ff9b::/96): the last 32 bits, which a translator on the path connects to;
 * - 6to4 `2002:AABB:CCDD::/48` (2002::/16): bits 16–47, the relay's IPv4 destination;
 * - Teredo `2001:0::/32`: the client's address, the last 32 bits inverted.
 */
function carriedIPv4(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroUpTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroUpTo(6) || (zeroUpTo(5) && g5 === 0xffff) || (zeroUpTo(4) && g4 === 0xffff && g5 === 0)) {
    return dottedQuad(g6, g7);
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dottedQuad(g6, g7);
  if (g0 === 0x2002) return dottedQuad(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return dottedQuad(g6 ^ 0xffff, g7 ^ 0xffff);
  return null;
}

/** The eight 16-bit groups of an IPv6 address that `isIP` accepted (`::`, a dotted tail, a zone). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const before = head ? head.split(':') : [];
  const after = tail ? tail.split(':') : [];
  const missing = tail === undefined ? [] : Array<string>(8 - before.length - after.length).fill('0');
  return [...before, ...missing, ...after].map((group) => parseInt(group, 16));
}

function dottedQuad(high: number, low: number): string {
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
