import { KubeConfig } from '@kubernetes/client-node';
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
