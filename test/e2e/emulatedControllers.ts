import type { KubeEmulator } from '../support/kube/emulator';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const finished = (job: Obj) =>
  ((job.status?.conditions ?? []) as Obj[]).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );

/**
 * The part of kube-controller-manager the emulator plays only when asked (controllers/cronjob.ts,
 * controllers/job.ts), asked every `intervalMs` as the real controllers' informers and sync loops
 * would act: every CronJob synced at the emulator's clock (it fires what is due), every unfinished
 * Job synced (pods made, status and conditions from the pods' phases). Harness only: the e2e suite
 * itself never touches the emulator but through its API.
 */
export function playControllerManager(emu: KubeEmulator, intervalMs = 200): () => void {
  const timer = setInterval(() => {
    for (const cronJob of emu.objects('batch/cronjobs')) {
      try {
        emu.syncCronJob(cronJob.metadata.namespace, cronJob.metadata.name);
      } catch {
        // Deleted between the list and the sync: the next pass does not see it.
      }
    }
    for (const job of emu.objects('batch/jobs')) {
      if (finished(job)) continue;
      try {
        emu.syncJob(job.metadata.namespace, job.metadata.name);
      } catch {
        // As above.
      }
    }
  }, intervalMs);
  return () => clearInterval(timer);
}
