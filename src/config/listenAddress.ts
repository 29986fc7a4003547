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
