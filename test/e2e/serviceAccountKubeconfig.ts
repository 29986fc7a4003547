import { writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterApi } from './clusterApi';

/**
 * Writes a kubeconfig for the cluster of `api` that speaks as the ServiceAccount `name` of
 * `namespace`, with a token from its TokenRequest (what the kubelet mounts in a pod), so that a
 * process given it has exactly the permissions its Roles grant, as in the chart's Deployments.
 */
export async function writeServiceAccountKubeconfig(
  api: ClusterApi,
  namespace: string,
  name: string,
  file: string,
): Promise<void> {
  const requested = await api.raw('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {},
  });
  if (requested.status !== 201) {
    throw new Error(`no token for ServiceAccount ${namespace}/${name}: ${JSON.stringify(requested.body)}`);
  }
  const cluster = api.kc.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: requested.body.status.token as string }],
    contexts: [{ name, cluster: cluster.name, user: name, namespace }],
    currentContext: name,
  });
  writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
}
