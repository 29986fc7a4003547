import type { V1Job, V1Pod } from '@kubernetes/client-node';

/** A Kubernetes Job deleted before its run was settled: what the run is recorded from. */
export interface DeletedJob {
  /** The Job as last seen: the delete event carries its final state. */
  job: V1Job;
  uid: string;
  /** When the controller saw it go. */
  deletedAt: Date;
  /** Its pods as last seen, by UID: the garbage collector deletes them after the Job. */
  pods: Map<string, V1Pod>;
}

/**
 * The deleted Jobs whose runs are not settled yet, by namespace and name (the work queue's key;
 * a name can come back as a new Job) and UID. Each is let go once its run is settled, so this holds
 * only the Jobs deleted within a report's grace of their end.
 */
export class DeletedJobs {
  private readonly byName = new Map<string, Map<string, DeletedJob>>();

  keep(job: V1Job, uid: string, deletedAt: Date, pods: readonly V1Pod[]): void {
    const key = keyOf(job.metadata?.namespace, job.metadata?.name);
    const sameName = this.byName.get(key) ?? new Map<string, DeletedJob>();
    const kept: DeletedJob = { job, uid, deletedAt, pods: new Map() };
    seePods(kept, pods);
    this.byName.set(key, sameName.set(uid, kept));
  }

  named(namespace: string, name: string): DeletedJob[] {
    return [...(this.byName.get(keyOf(namespace, name))?.values() ?? [])];
  }

  /**
   * The runs of the Jobs named so (the work queue's key): the deleted ones not settled yet, then
   * the one that exists (`live`, unless it is one of those), each through `reconcileRun`; answers
   * the soonest of the requeues they ask for.
   */
  async reconcileNamed(
    namespace: string,
    name: string,
    live: V1Job | undefined,
    reconcileRun: (job: V1Job, gone: DeletedJob | undefined) => Promise<{ requeueAfterMs?: number }>,
  ): Promise<{ requeueAfterMs?: number }> {
    const waits: number[] = [];
    for (const gone of this.named(namespace, name)) {
      const { requeueAfterMs } = await reconcileRun(gone.job, gone);
      if (requeueAfterMs !== undefined) waits.push(requeueAfterMs);
    }
    if (live && !this.has(live)) {
      const { requeueAfterMs } = await reconcileRun(live, undefined);
      if (requeueAfterMs !== undefined) waits.push(requeueAfterMs);
    }
    return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : {};
  }

  has(job: V1Job): boolean {
    const uid = job.metadata?.uid;
    return (
      uid !== undefined &&
      this.byName.get(keyOf(job.metadata?.namespace, job.metadata?.name))?.has(uid) === true
    );
  }

  letGo(deleted: DeletedJob): void {
    const key = keyOf(deleted.job.metadata?.namespace, deleted.job.metadata?.name);
    const sameName = this.byName.get(key);
    sameName?.delete(deleted.uid);
    if (sameName?.size === 0) this.byName.delete(key);
  }

  /** Lets go every deleted Job of the namespace (no longer watched); answers them. */
  letGoNamespace(namespace: string): DeletedJob[] {
    const gone: DeletedJob[] = [];
    for (const [key, sameName] of this.byName) {
      if (!key.startsWith(`${namespace}/`)) continue;
      gone.push(...sameName.values());
      this.byName.delete(key);
    }
    return gone;
  }

  /** A pod was deleted: a deleted Job it belongs to keeps its final state. */
  podDeleted(pod: V1Pod): void {
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'Job');
    const deleted = owner && this.byName.get(keyOf(pod.metadata?.namespace, owner.name))?.get(owner.uid);
    if (deleted) seePods(deleted, [pod]);
  }
}

/** Keeps the latest state of each pod (pods still in the cache are fresher than those kept). */
export function seePods(deleted: DeletedJob, pods: readonly V1Pod[]): void {
  for (const pod of pods) {
    const uid = pod.metadata?.uid;
    if (uid) deleted.pods.set(uid, pod);
  }
}

function keyOf(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}
