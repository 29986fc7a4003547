import { KubeConfig } from '@kubernetes/client-node';

/**
 * Finds the cluster as kubectl does: inside a pod, from its ServiceAccount (token, CA and the
 * KUBERNETES_SERVICE_* variables); elsewhere from KUBECONFIG or ~/.kube/config and its current
 * context, so a developer can point the controller at any cluster.
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
