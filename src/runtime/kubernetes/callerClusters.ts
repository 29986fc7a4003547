import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Caller } from '../../domain/caller';
import { type ClusterClient, clusterClientWithToken } from '../../kube/clusterClient';
import type { Logger } from '../../logging/logger';

/** Callers whose client is kept; past this, the one used longest ago is dropped (and made again if needed). */
const MAX_KEPT = 256;

/**
 * The clients that write the cluster as callers (SERVICE_AUTH=kubernetes): the service's cluster,
 * each caller's own token. A client is a few objects, kept by the token's hash for the next change
 * of the same caller (a dashboard's clicks), a bounded number of them.
 *
 * @public Required lazily by src/runtime/createRuntime.ts (local mode never loads it); knip does
 * not follow that require.
 */
export class CallerClusters {
  private readonly kept = new Map<string, ClusterClient>();

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly logger: Logger,
  ) {}

  of(caller: Caller): ClusterClient {
    const key = createHash('sha256').update(caller.token).digest('hex');
    let client = this.kept.get(key);
    if (client) {
      this.kept.delete(key);
    } else {
      client = clusterClientWithToken(this.kubeConfig, caller.token, this.logger);
      if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    }
    this.kept.set(key, client);
    return client;
  }
}
