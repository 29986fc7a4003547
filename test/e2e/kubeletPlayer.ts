import type { V1Pod } from '@kubernetes/client-node';
import { ContainerConfigError } from '../support/kube/expansion';
import { type LocalPod, startLocalPod } from '../support/kube/podProcesses';
import { type ClusterApi, STRATEGIC_MERGE, statusOf } from './clusterApi';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The Node the player registers; a cluster's own schedulable nodes are the others. */
const PLAYER_NODE = 'crondeck-e2e-kubelet';
const PLAYER_NODE_LABEL = 'crondeck.dev/e2e-kubelet';

/**
 * The scheduler and the kubelet of a cluster that has no node to run pods (a bare control plane,
 * or the emulator), played for one namespace through the API only, as they would do it: a Node of
 * its own; each new pod bound to it (pods/binding); its containers run as local processes with the
 * environment a kubelet builds (values, Secrets, ConfigMaps, the downward API; `$(VAR)` and `$$`
 * expanded: test/support/kube/expansion.ts), native sidecars, emptyDir paths (podProcesses.ts); its
 * status written as a strategic merge patch of pods/status (Running, then Succeeded or Failed with
 * the exit codes); a deleted pod's processes stopped and the deletion confirmed (grace period 0).
 * It polls rather than watches: a few requests a second, and nothing to resume after a dropped watch.
 */
export class KubeletPlayer {
  private readonly running = new Map<string, LocalPod>();
  /** Pods that could not start yet (a Secret not there yet): when to try again. */
  private readonly retryAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeats: NodeJS.Timeout | undefined;
  private readySince: string | undefined;
  private pass: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly problems: string[] = [];

  private constructor(
    private readonly api: ClusterApi,
    private readonly namespace: string,
    private readonly crondeck: string[],
  ) {}

  static async start(api: ClusterApi, namespace: string, crondeck: string[]): Promise<KubeletPlayer> {
    const player = new KubeletPlayer(api, namespace, crondeck);
    try {
      await api.core.createNode({
        body: {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: PLAYER_NODE, labels: { [PLAYER_NODE_LABEL]: 'true' } },
          // The cluster's scheduler (if any) places nothing here: the player binds its pods itself.
          spec: { taints: [{ key: PLAYER_NODE_LABEL, value: 'true', effect: 'NoSchedule' }] },
        },
      });
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
    }
    await player.heartbeat();
    player.heartbeats = setInterval(
      () => void player.heartbeat().catch((error: Error) => player.note(`heartbeat: ${error.message}`)),
      10_000,
    );
    const tick = () => {
      player.pass = player.playOnce().catch((error: Error) => player.note(error.message));
      void player.pass.then(() => {
        if (!player.stopped) player.timer = setTimeout(tick, 150);
      });
    };
    tick();
    return player;
  }

  /** Stops every pod's processes and removes the Node. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeats);
    await this.pass;
    for (const pod of this.running.values()) pod.kill();
    await Promise.allSettled([...this.running.values()].map((pod) => pod.exitCode));
    try {
      await this.api.core.deleteNode({ name: PLAYER_NODE });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  /**
   * The kubelet's node status: Ready, renewed every 10 s. A Node that never reports is marked
   * unreachable by the node controller after its grace period (40 s), and its pods are evicted once
   * their default toleration (300 s) runs out: a run on a real control plane could outlast that.
   */
  private async heartbeat(): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    this.readySince ??= now;
    await this.api.core.patchNodeStatus(
      {
        name: PLAYER_NODE,
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'KubeletReady',
                message: 'the e2e suite plays this node’s kubelet',
                lastHeartbeatTime: now,
                lastTransitionTime: this.readySince,
              },
            ],
          },
        },
      },
      STRATEGIC_MERGE,
    );
  }

  private note(problem: string): void {
    this.problems.push(problem);
    if (this.problems.length > 50) this.problems.shift();
  }

  private async playOnce(): Promise<void> {
    const { items } = await this.api.core.listNamespacedPod({ namespace: this.namespace });
    for (const pod of items) {
      const { name, uid, deletionTimestamp } = pod.metadata ?? {};
      if (!name || !uid) continue;
      const mine = pod.spec?.nodeName === PLAYER_NODE;
      if (deletionTimestamp) {
        if (mine) await this.confirmDeletion(pod);
      } else if (!pod.spec?.nodeName && !finished(pod)) {
        await this.bind(name);
      } else if (mine && !this.running.has(uid) && pod.status?.phase === 'Pending') {
        if ((this.retryAt.get(uid) ?? 0) <= Date.now()) await this.run(pod);
      }
    }
  }

  private async bind(name: string): Promise<void> {
    try {
      await this.api.core.createNamespacedPodBinding({
        name,
        namespace: this.namespace,
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name },
          target: { apiVersion: 'v1', kind: 'Node', name: PLAYER_NODE },
        },
      });
    } catch (error) {
      // Bound meanwhile (a scheduler of the cluster), or gone: the next pass sees which.
      if (statusOf(error) !== 409 && statusOf(error) !== 404) throw error;
    }
  }

  private async run(pod: V1Pod): Promise<void> {
    const uid = pod.metadata!.uid!;
    const name = pod.metadata!.name!;
    const sources = await this.sourcesOf(pod);
    let local: LocalPod;
    try {
      local = await startLocalPod(pod as Obj, {
        sources: {
          pod: pod as Obj,
          secret: (secret) => sources.secrets.get(secret),
          configMap: (configMap) => sources.configMaps.get(configMap),
        },
        writeStatus: (status) => this.writeStatus(name, status),
        crondeck: this.crondeck,
        // activeDeadlineSeconds bounds a run in a cluster; a pod no deadline stops is still bounded.
        deadlineMs: ((pod.spec?.activeDeadlineSeconds ?? 600) + 30) * 1000,
      });
    } catch (error) {
      if (!(error instanceof ContainerConfigError)) throw error;
      // The kubelet keeps such a pod Pending and tries again (the Secret may come a moment later).
      this.note(`${name}: ${error.reason}: ${error.message}`);
      this.retryAt.set(uid, Date.now() + 1000);
      return;
    }
    this.running.set(uid, local);
    local.exitCode.then(
      () => undefined,
      (error: Error) => this.note(`${name}: ${error.message}`),
    );
  }

  /** The Secrets and ConfigMaps the pod's containers name, read through the API. */
  private async sourcesOf(pod: V1Pod): Promise<{ secrets: Map<string, Obj>; configMaps: Map<string, Obj> }> {
    const secretNames = new Set<string>();
    const configMapNames = new Set<string>();
    for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      for (const from of container.envFrom ?? []) {
        if (from.secretRef?.name) secretNames.add(from.secretRef.name);
        if (from.configMapRef?.name) configMapNames.add(from.configMapRef.name);
      }
      for (const variable of container.env ?? []) {
        if (variable.valueFrom?.secretKeyRef?.name) secretNames.add(variable.valueFrom.secretKeyRef.name);
        if (variable.valueFrom?.configMapKeyRef?.name)
          configMapNames.add(variable.valueFrom.configMapKeyRef.name);
      }
    }
    const read = async <T>(names: Set<string>, get: (name: string) => Promise<T>) => {
      const found = new Map<string, Obj>();
      for (const name of names) {
        try {
          found.set(name, (await get(name)) as Obj);
        } catch (error) {
          if (statusOf(error) !== 404) throw error;
        }
      }
      return found;
    };
    const namespace = this.namespace;
    return {
      secrets: await read(secretNames, (name) => this.api.core.readNamespacedSecret({ name, namespace })),
      configMaps: await read(configMapNames, (name) =>
        this.api.core.readNamespacedConfigMap({ name, namespace }),
      ),
    };
  }

  private async writeStatus(name: string, status: Obj): Promise<void> {
    await this.api.core.patchNamespacedPodStatus(
      { name, namespace: this.namespace, body: { status } },
      STRATEGIC_MERGE,
    );
  }

  /** The kubelet's part of a graceful deletion: stop the containers, then delete for good. */
  private async confirmDeletion(pod: V1Pod): Promise<void> {
    const uid = pod.metadata!.uid!;
    const local = this.running.get(uid);
    if (local) {
      local.kill();
      await local.exitCode.catch(() => undefined);
    }
    try {
      await this.api.core.deleteNamespacedPod({
        name: pod.metadata!.name!,
        namespace: this.namespace,
        gracePeriodSeconds: 0,
      });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
}

function finished(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** Whether the cluster has a node of its own that can run pods (Ready, schedulable, not the player's). */
export async function hasSchedulableNode(api: ClusterApi): Promise<boolean> {
  const { items } = await api.core.listNode();
  return items.some(
    (node) =>
      node.metadata?.labels?.[PLAYER_NODE_LABEL] === undefined &&
      !node.spec?.unschedulable &&
      (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
  );
}
