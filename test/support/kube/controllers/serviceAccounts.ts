import type { KubeEmulator } from '../emulator';

/**
 * The ServiceAccount controller's part that pods depend on: every new namespace gets its
 * `default` ServiceAccount, which the ServiceAccount admission plugin requires of a pod that names
 * none (builtins/serviceAccountAdmission.ts). Since 1.24 no token Secret comes with it.
 */
export function createDefaultServiceAccount(emu: KubeEmulator, namespace: string): void {
  if (emu.store.get('/serviceaccounts', namespace, 'default')) return;
  emu.seed(emu.typeByName('serviceaccounts'), {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace },
  });
}
