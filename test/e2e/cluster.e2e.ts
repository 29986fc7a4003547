import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describeE2e } from './suite';

/**
 * `npm run test:e2e`: the suite against the cluster of KUBECONFIG (or ~/.kube/config), whose own
 * CronJob, Job and garbage-collector controllers do the work, firing on minute boundaries.
 * docs/e2e.md says what it needs.
 */
function kubeconfigPath(): string {
  const path = process.env.KUBECONFIG?.split(':')[0] || join(homedir(), '.kube/config');
  if (!existsSync(path)) throw new Error(`no kubeconfig at ${path}: set KUBECONFIG`);
  return path;
}

describeE2e(`the e2e suite against the cluster of ${kubeconfigPath()}`, async () => ({
  kubeconfig: kubeconfigPath(),
  real: true,
  hastenScheduledFire: () => undefined,
  stop: async () => undefined,
}));
