/** True for addresses only this machine can reach. */
function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Refuses to expose an unauthenticated API beyond this machine: a non-loopback address needs
 * SERVICE_API_TOKEN, or an explicit --insecure when something in front of the service authenticates.
 */
export function assertSafeListenAddress(host: string, apiToken: string | null, insecure: boolean): void {
  if (isLoopbackAddress(host) || apiToken || insecure) return;
  throw new Error(
    `refusing to listen on ${host} without SERVICE_API_TOKEN: set a token, or pass --insecure if something in front of the service authenticates`,
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
