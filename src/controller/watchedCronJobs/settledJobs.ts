import type { ObjectCache, V1Job, V1Pod } from '@kubernetes/client-node';

/**
 * What the caches keep of a Job whose run is recorded, and of its pods: their metadata alone. Once
 * the run is recorded nothing reads more of them than whose they are and whether they exist (the
 * Job of a slot started late); their spec and status, most of their size, go. A CronJob's history
 * is mostly such Jobs, and their pods (bench/probes/watchedCronJobsMemory.ts: 228 → 198 MB after
 * recording 10,000 runs). The cache keeps the very object it hands out (runtime/informer.ts), so
 * the trim is the cache's; an event of the Job brings the whole object back, and its next
 * reconcile trims it again.
 */
export function keepMetadataOnly(
  kubeJob: V1Job,
  caches: { jobs: ObjectCache<V1Job>; pods: ObjectCache<V1Pod> },
): void {
  const { namespace, name, uid } = kubeJob.metadata ?? {};
  if (!uid) return;
  const cached = caches.jobs.get(name ?? '', namespace);
  if (cached && cached.metadata?.uid === uid) dropSpecAndStatus(cached);
  for (const pod of caches.pods.list(namespace)) {
    if (pod.metadata?.ownerReferences?.some((owner) => owner.uid === uid)) dropSpecAndStatus(pod);
  }
}

/** Whether a cached Job or pod is still whole (not trimmed, or brought back whole by an event). */
export function isWhole(object: V1Job | V1Pod): boolean {
  return object.spec !== undefined || object.status !== undefined;
}

/** Trims one cached Job or pod to its metadata, in place. */
export function dropSpecAndStatus(object: V1Job | V1Pod): void {
  delete object.spec;
  delete object.status;
}
