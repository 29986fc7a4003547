import { KubeConfig } from '@kubernetes/client-node';

/**
 * Finds the cluster as kubectl does: inside a pod, from its ServiceAccount (token, CA and the
 * KUBERNETES_SERVICE_* variables); elsewhere from KUBECONFIG or ~/.kube/config and its current
 * context, so a developer can point the controller at any cluster.
 *
 * @public Required lazily by src/cli.ts (only the commands that talk to a cluster load it); knip
 * does not follow that require.
 */
export function loadKubeConfig(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  if (env.KUBERNETES_SERVICE_HOST && !env.KUBECONFIG) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) {
    throw new Error('no Kubernetes cluster found: run in a pod, or set KUBECONFIG (or ~/.kube/config)');
  }
  return kc;
}
