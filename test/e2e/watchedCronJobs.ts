import type { V1CronJob } from '@kubernetes/client-node';
import { type E2eHarness, type E2eTarget, within } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WATCHES = { group: 'crondeck.dev', version: 'v1alpha1', plural: 'cronjobwatches' };
const LABEL = 'crondeck-e2e/watch';

/** A plain CronJob: nothing of Crondeck in it. */
function plainCronJob(name: string, labels: Record<string, string>): V1CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, labels },
    spec: {
      schedule: '* * * * *',
      timeZone: 'UTC',
      jobTemplate: {
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [
                { name: 'main', image: 'busybox:1.36', command: ['/bin/sh', '-c', 'echo watched; exit 3'] },
              ],
            },
          },
        },
      },
    },
  };
}

/**
 * Issue 40 on the cluster, through its API and the REST API only: a plain CronJob that prints and
 * exits 3 every minute, selected by a CronJobWatch's label selector, has its run recorded with exit
 * code, reason and (where the cluster serves pods/log) its output, its slot judged, one alert
 * delivered; suspended by a patch, its next slots are missed with that reason; an unselected one is
 * never recorded.
 */
export function describeWatchedCronJobs(harness: () => E2eHarness, target: () => E2eTarget): void {
  describe('a CronJob the cluster already has, watched', () => {
    let jobId: number;
    const wait = <T>(ms: number, what: string, check: () => Promise<T | undefined | null | false>) =>
      within(ms, what, () => harness().diagnostics(), check);
    const jobsNamed = async (name: string) =>
      ((await harness().rest('GET', '/api/jobs')).body as unknown as Obj[]).filter(
        (job) => job.name === name,
      );
    const executions = async () =>
      (await harness().rest('GET', `/api/executions?jobId=${jobId}`)).body as unknown as Obj[];

    it('records a selected CronJob’s run with exit code, reason and output, and alerts once', async () => {
      const h = harness();
      const namespace = h.namespace;
      await h.api.batch.createNamespacedCronJob({
        namespace,
        body: plainCronJob('exits', { [LABEL]: 'yes' }),
      });
      await h.api.batch.createNamespacedCronJob({ namespace, body: plainCronJob('unselected', {}) });
      await h.api.custom.createNamespacedCustomObject({
        ...WATCHES,
        namespace,
        body: {
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'CronJobWatch',
          metadata: { name: 'e2e' },
          spec: {
            selector: { matchLabels: { [LABEL]: 'yes' } },
            webhooks: [{ url: `${h.receiver.url}/watched`, events: ['failed'] }],
            // A loaded cluster's CronJob and Job controllers may start a Job some seconds after
            // its minute: the grace leaves room for that, and the slot is still judged within
            // the wait below.
            lateAfterSeconds: 30,
          },
        },
      });
      const [job] = await wait(h.bounds.settleMs * 10, 'the watched job', async () => {
        const found = await jobsNamed(`cronjob.${namespace}.exits`);
        return found.length === 1 ? found : null;
      });
      expect(job).toMatchObject({
        source: 'cronjob',
        cronJob: { namespace, name: 'exits', watchedBy: 'e2e' },
      });
      jobId = job!.id;

      target().hastenScheduledFire();
      const failed = await wait(h.bounds.fireMs + h.bounds.runMs, 'the run to be recorded', async () =>
        (await executions()).find((e) => e.status === 'failed'),
      );
      expect(failed).toMatchObject({
        exitCode: 3,
        attempt: 0,
        reason: 'BackoffLimitExceeded',
        trigger: 'schedule',
      });
      const full = (await h.rest('GET', `/api/executions/${failed.id}`)).body;
      // Where the cluster serves pods/log, the output; where it does not, it says so.
      if (full.stdout !== 'watched\n') expect(full.stderr).toMatch(/^\[crondeck\] no output: /);

      await wait(h.bounds.runMs, 'the alert', async () => h.receiver.to('/watched').length > 0);
      expect(h.receiver.to('/watched')[0]!.json).toMatchObject({
        event: 'failed',
        job: { id: jobId },
        execution: { exitCode: 3 },
      });

      // Its slot is judged from its Job: on the emulator the cluster's clock may run ahead of serve's.
      const at = encodeURIComponent(failed.scheduledAt);
      const slot = await wait(150_000, 'the slot to be judged', async () => {
        const { body } = await h.rest('GET', `/api/jobs/${jobId}/slots?from=${at}&to=${at}`);
        return (body as unknown as Obj[])[0];
      });
      expect(slot).toMatchObject({ outcome: 'ran', executionIds: [failed.id] });
      // One alert for the run: the outbox's next pass would have sent a second by now.
      expect(h.receiver.to('/watched').filter((r) => r.json?.execution?.id === failed.id)).toHaveLength(1);
    }, 300_000);

    it('judges the slots of the CronJob suspended with a patch missed, saying why', async () => {
      const h = harness();
      await h.api.batch.patchNamespacedCronJob({
        namespace: h.namespace,
        name: 'exits',
        body: [{ op: 'add', path: '/spec/suspend', value: true }],
      });
      // On the emulator a slot its clock jumped over is missed too, for the controller's reason.
      const missed = await wait(240_000, 'a slot missed while suspended', async () => {
        const { body } = await h.rest('GET', `/api/jobs/${jobId}/slots`);
        return (body as unknown as Obj[]).find(
          (slot) =>
            slot.outcome === 'missed' && slot.reason === 'the CronJob was suspended (spec.suspend: true)',
        );
      });
      expect(missed.executionIds).toEqual([]);
      expect((await h.rest('GET', `/api/jobs/${jobId}`)).body.enabled).toBe(false);
    }, 300_000);

    it('never records a CronJob no selection holds, though it fires', async () => {
      const h = harness();
      const { items } = await h.api.batch.listNamespacedJob({ namespace: h.namespace });
      const fired = items.filter((j) =>
        j.metadata?.ownerReferences?.some((ref) => ref.name === 'unselected'),
      );
      expect(fired.length).toBeGreaterThan(0);
      expect(await jobsNamed(`cronjob.${h.namespace}.unselected`)).toEqual([]);
      // Suspended, so that a real cluster runs it no more while the suite ends.
      await h.api.batch.patchNamespacedCronJob({
        namespace: h.namespace,
        name: 'unselected',
        body: [{ op: 'add', path: '/spec/suspend', value: true }],
      });
    });
  });
}
