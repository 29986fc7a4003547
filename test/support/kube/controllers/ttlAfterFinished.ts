import type { KubeEmulator } from '../emulator';
import { deleteObject } from '../handlers/delete';
import type { Obj } from '../types';

const JOBS = 'batch/jobs';

/**
 * The TTL-after-finished controller (kcm's ttlafterfinished, upstream; no recording shows it): a Job
 * with `spec.ttlSecondsAfterFinished` that has finished (its Complete or Failed condition) is
 * deleted once that many seconds have passed since the condition's lastTransitionTime, with
 * Foreground propagation and a uid precondition: the Job is marked (deletionTimestamp, the
 * foregroundDeletion finalizer), the garbage collector deletes its pods first (their
 * ownerReference blocks the owner's deletion), then the Job goes. With them go the pods' logs
 * (pods/log answers 404). It emits no Event. Runs at the emulator's clock: the Job controller calls
 * it when a Job finishes (a TTL of 0 deletes it at once), a test calls `emu.expireFinishedJobs()`
 * after moving the clock on. Returns the Jobs it deleted.
 */
export function expireFinishedJobs(emu: KubeEmulator, namespace?: string): Obj[] {
  const now = emu.now();
  const expired = emu.objects(JOBS, namespace).filter((job) => {
    const ttl = job.spec?.ttlSecondsAfterFinished;
    const finishedAt = finishTime(job);
    if (ttl === undefined || ttl === null || finishedAt === undefined || job.metadata.deletionTimestamp) {
      return false;
    }
    return finishedAt + ttl * 1000 <= now.getTime();
  });
  for (const job of expired) {
    deleteObject(emu.store, emu.typeByName(JOBS), job, 'Foreground', now);
    emu.afterWrite();
  }
  return expired;
}

function finishTime(job: Obj): number | undefined {
  const done = ((job.status?.conditions ?? []) as Obj[]).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  return done ? Date.parse(done.lastTransitionTime) : undefined;
}
