import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has, as `dns.promises.lookup` with `all: true`. */
export type LookupAll = (host: string) => Promise<LookupAddress[]>;

const systemLookup: LookupAll = (host) => lookup(host, { all: true, verbatim: true });

/** The addresses only this machine can reach; IPv4-mapped IPv6 (`::ffff:127.0.0.1`) included. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** `host` as an address (`[::1]` is `::1`), or null for a name. */
function addressOf(host: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const version = isIP(bare);
  return version === 0 ? null : { address: bare, family: version === 4 ? 'ipv4' : 'ipv6' };
}

const isLoopback = (address: string): boolean => {
  const parsed = addressOf(address);
  return parsed !== null && LOOPBACK.check(parsed.address, parsed.family);
};

/**
 * Why `host` can be reached from other machines, or null when it cannot. A name is judged by every
 * address it resolves to, not by its spelling: `localhost` can be made to resolve anywhere
 * (/etc/hosts, a resolver), and the server would listen where it points.
 */
async function exposure(host: string, lookupAll: LookupAll): Promise<string | null> {
  const address = addressOf(host);
  if (address) return LOOPBACK.check(address.address, address.family) ? null : 'it is not a loopback address';
  let resolved: LookupAddress[];
  try {
    resolved = await lookupAll(host);
  } catch (error) {
    return `it does not resolve (${(error as Error).message})`;
  }
  if (resolved.length === 0) return 'it does not resolve';
  const elsewhere = resolved.map((entry) => entry.address).filter((entry) => !isLoopback(entry));
  if (elsewhere.length === 0) return null;
  return `it resolves to ${elsewhere.join(', ')}, which ${elsewhere.length === 1 ? 'is not a loopback address' : 'are not loopback addresses'}`;
}

/**
 * Refuses to expose an unauthenticated API beyond this machine: an address other than loopback,
 * or a name any address of which is, needs SERVICE_API_TOKEN, or an explicit --insecure when
 * something in front of the service authenticates.
 */
export async function assertSafeListenAddress(
  host: string,
  apiToken: string | null,
  insecure: boolean,
  lookupAll: LookupAll = systemLookup,
): Promise<void> {
  if (apiToken || insecure) return;
  const why = await exposure(host, lookupAll);
  if (why === null) return;
  throw new Error(
    `refusing to listen on ${host} without SERVICE_API_TOKEN: ${why}; set a token, or pass --insecure if something in front of the service authenticates`,
  );
}

/** The host that means every address of both families (`--host ::`). */
const EVERY_ADDRESS = '::';

/**
 * The host to hand `server.listen`: none for `::`, which Node then binds dual-stack (`::`, IPv4
 * connections arriving as mapped addresses) where the kernel has IPv6, and on `0.0.0.0` where it
 * has none, instead of failing with EAFNOSUPPORT as an explicit `::` would. The controller's health
 * server listens the same way. Any other host is bound as given (`0.0.0.0`: IPv4 only).
 */
export function listenHostOf(host: string): string | undefined {
  return host === EVERY_ADDRESS ? undefined : host;
}
