/** Public surface of the Kubernetes API emulator used by the controller tests. */
export { ADMIN_TOKEN, KubeEmulator, type EmulatorOptions } from './emulator';
export { kubeConfigFor } from './kubeconfig';
export type { AllowRule } from './auth';
export type { User } from './handlers/context';
