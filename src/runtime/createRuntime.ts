import type { KubeConfig } from '@kubernetes/client-node';
import type { Caller } from '../domain/caller';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import type { ExecutionRecorder } from '../scheduling/executionRecorder';
import type { SlotJudge } from '../scheduling/slotJudge';
import type { Database } from '../store/database';
import { AdvisoryLockLeadership, soleLeadership } from './local/leadership';
import { LocalRuntime, type LocalRuntimeHooks, type LocalRuntimeOptions } from './local/localRuntime';
import { poolRuntimeStore } from './local/localRuntimeStore';
import type { Runtime, RuntimeKind } from './runtime';

/** Tuning and test seams of the local runtime. */
export type LocalRuntimeSettings = Pick<
  LocalRuntimeOptions,
  | 'execute'
  | 'sleep'
  | 'autoTick'
  | 'shutdownGraceMs'
  | 'syncIntervalMs'
  | 'heartbeatMs'
  | 'ownerTimeoutMs'
  | 'identity'
  | 'judgeIntervalMs'
> & {
  /** How often a process that does not lead tries to take over (on a PostgreSQL server). */
  leaderRetryMs?: number;
};

export interface RuntimeDeps {
  db: Database;
  /**
   * Kubernetes mode: the cluster, and the namespaces the REST API writes and pause touches.
   * `writeAsCallers` (SERVICE_AUTH=kubernetes): the writes made for a caller go with their token.
   */
  kubernetes?: {
    kubeConfig: KubeConfig;
    namespace: string;
    watchNamespace: string | null;
    writeAsCallers?: boolean;
  };
  recorder: ExecutionRecorder;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
  /** Judges the slot ledger; locally the leader runs it. */
  judge?: SlotJudge;
}

export interface CreatedRuntime {
  runtime: Runtime;
  /** The local runtime's hooks when it is the one chosen (tests, diagnostics). */
  local: LocalRuntimeHooks | null;
}

/** The one place where the runtime is chosen. */
export function createRuntime(
  kind: RuntimeKind,
  deps: RuntimeDeps,
  settings: LocalRuntimeSettings = {},
): CreatedRuntime {
  switch (kind) {
    case 'local': {
      const { leaderRetryMs, ...local } = settings;
      const openSession = deps.db.openSession;
      const leadership = openSession
        ? new AdvisoryLockLeadership({ openSession, logger: deps.logger, retryMs: leaderRetryMs })
        : soleLeadership();
      const runtime = new LocalRuntime({
        recorder: deps.recorder,
        store: poolRuntimeStore(deps.db.pool),
        leadership,
        clock: deps.clock,
        logger: deps.logger,
        defaultTimeZone: deps.defaultTimeZone,
        judge: deps.judge,
        // Other processes can share a server's database only: then the leader looks for their writes.
        syncIntervalMs: openSession ? 1000 : null,
        ...local,
      });
      return { runtime, local: runtime };
    }
    case 'kubernetes': {
      // Firing belongs to the cluster: no replica fires anything, whoever leads.
      if (!deps.kubernetes) throw new Error('the kubernetes runtime needs a cluster to talk to');
      // Replicas share the database with the controller, and the runtime reads it beside the
      // use case's open transaction: the embedded single-session database can do neither.
      if (!deps.db.openSession)
        throw new Error('SERVICE_RUNTIME=kubernetes needs a PostgreSQL server (DATABASE_URL)');
      // Loaded here, not above: @kubernetes/client-node costs some 60 MB that local mode never needs.
      const { ClusterClient } = require('../kube/clusterClient') as typeof import('../kube/clusterClient');
      const { KubernetesRuntime } =
        require('./kubernetes/kubernetesRuntime') as typeof import('./kubernetes/kubernetesRuntime');
      const { CallerClusters } =
        require('./kubernetes/callerClusters') as typeof import('./kubernetes/callerClusters');
      const callers = deps.kubernetes.writeAsCallers
        ? new CallerClusters(deps.kubernetes.kubeConfig, deps.logger)
        : null;
      const runtime = new KubernetesRuntime({
        cluster: new ClusterClient(deps.kubernetes.kubeConfig, deps.logger),
        pool: deps.db.pool,
        namespace: deps.kubernetes.namespace,
        watchNamespace: deps.kubernetes.watchNamespace,
        clock: deps.clock,
        logger: deps.logger,
        ...(callers ? { clusterOf: (caller: Caller) => callers.of(caller) } : {}),
      });
      return { runtime, local: null };
    }
  }
}
