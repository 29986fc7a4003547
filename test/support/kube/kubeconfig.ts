import { KubeConfig } from '@kubernetes/client-node';
import { writeFileSync } from 'node:fs';
import type { KubeEmulator } from './emulator';

/** A real client-node KubeConfig pointing at the emulator with a bearer-token user. */
export function kubeConfigFor(emu: KubeEmulator, token: string = emu.adminToken): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'emulator', server: emu.url, skipTLSVerify: true }],
    users: [{ name: 'emulator-user', token }],
    contexts: [{ name: 'emulator', cluster: 'emulator', user: 'emulator-user', namespace: 'default' }],
    currentContext: 'emulator',
  });
  return kc;
}

/**
 * Writes a kubeconfig file for a child process (helm, kubectl, the CLI): one cluster at `server`,
 * trusted through `caCert` (PEM) when given, and one bearer-token user, as its current context.
 */
export function writeKubeconfigFile(
  file: string,
  cluster: { server: string; token: string; caCert?: string },
): void {
  const trust = cluster.caCert
    ? { 'certificate-authority-data': Buffer.from(cluster.caCert).toString('base64') }
    : {};
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cluster', cluster: { server: cluster.server, ...trust } }],
      users: [{ name: 'user', user: { token: cluster.token } }],
      contexts: [{ name: 'cluster', context: { cluster: 'cluster', user: 'user' } }],
      'current-context': 'cluster',
    }),
  );
}
