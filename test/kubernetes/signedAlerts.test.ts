import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { Receiver } from '../alerts/support/receiver';
import { verifyStandardWebhook } from '../alerts/support/standardWebhooks';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import {
  createScheduledJob,
  NAMESPACE,
  recentYearlyFire,
  REPORT_SECRET,
  runController,
  startCluster,
  until,
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SIGNING_SECRET = `whsec_${Buffer.from('a-signing-key-kept-in-a-secret!!').toString('base64')}`;

/**
 * A signed webhook declared on the cluster: the AlertConfig names the Secret keys of its URL and
 * of its `whsec_` secret; the controller reads both from the Secret into the service's
 * configuration, and a run's alert arrives signed with that secret.
 */
describe('an AlertConfig webhook signed with a secret from a Secret', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let service: TestService;
  let receiver: Receiver;
  let controller: Awaited<ReturnType<typeof runController>>;
  const yearly = recentYearlyFire();

  const createSecret = (name: string, data: Record<string, string>) =>
    kc.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: NAMESPACE,
      body: {
        metadata: { name },
        data: Object.fromEntries(
          Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
        ),
      },
    });
  const createAlertConfig = (name: string, spec: Obj) =>
    kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'crondeck.dev',
      version: 'v1alpha1',
      namespace: NAMESPACE,
      plural: 'alertconfigs',
      body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'AlertConfig', metadata: { name }, spec },
    });
  const readyOf = (name: string): Obj | undefined =>
    emu
      .objects('alertconfigs', NAMESPACE)
      .find((o) => o.metadata?.name === name)
      ?.status?.conditions?.find((c: Obj) => c.type === 'Ready');

  beforeAll(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
    receiver = await Receiver.start();
    service = await startTestService({
      db,
      env: { SERVICE_REPORT_SECRET: REPORT_SECRET },
      alerting: { pollIntervalMs: 50 },
    });
    controller = await runController(kc, db, { reportUrl: service.url });
    await createSecret('alert-hooks', { url: `${receiver.url}/signed\n`, signing: SIGNING_SECRET });
    await createScheduledJob(kc, 'signed-loop', {
      schedule: yearly.schedule,
      timeZone: 'UTC',
      command: 'echo broken >&2; exit 3',
      retry: { maxAttempts: 0 },
    });
    await until(() => emu.objects('cronjobs', NAMESPACE).length === 1, 'the CronJob');
  }, 60_000);
  afterAll(async () => {
    await controller.stop();
    await service.stop();
    await receiver.close();
    await emu.stop();
    await db.close();
  });

  it('reads the secret from the Secret, shows signed: true, and signs the run’s alert with it', async () => {
    await createAlertConfig('signed-alerts', {
      jobRef: { name: 'signed-loop' },
      webhooks: [
        {
          urlFrom: { secretKeyRef: { name: 'alert-hooks', key: 'url' } },
          secretRef: { name: 'alert-hooks', key: 'signing' },
          events: ['failed'],
        },
      ],
    });
    await until(() => readyOf('signed-alerts')?.status === 'True', 'the AlertConfig to be Ready');
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'signed-loop'))!;
    // Ready is written before the job's configuration: wait for the configuration itself.
    const alerts = await until(async () => {
      const read = await service.request('GET', `/api/jobs/${id}/alerts`);
      return read.body.webhooks.length > 0 ? read : null;
    }, 'the job’s alert configuration');
    expect(alerts.body).toEqual({
      webhooks: [{ url: `${receiver.url}/signed`, events: ['failed'], signed: true }],
      emails: [],
    });

    const job = emu.fireCronJob(NAMESPACE, 'signed-loop', yearly.firedAt());
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = emu
      .objects('pods', NAMESPACE)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    expect(await runPod(emu, NAMESPACE, pod.metadata.name)).toBe(3);
    await until(() => receiver.to('/signed').length === 1, 'the signed alert');

    const [alert] = receiver.to('/signed');
    expect(alert!.json).toMatchObject({ event: 'failed', job: { id }, execution: { exitCode: 3 } });
    expect(verifyStandardWebhook(SIGNING_SECRET, alert!.headers, alert!.text)).toBe(true);
    // The secret stays in its Secret: in no other object of the cluster, in no log line.
    const elsewhere = ['alertconfigs', 'scheduledjobs', 'cronjobs', 'jobs', 'pods', 'events'].flatMap(
      (kind) => emu.objects(kind, NAMESPACE),
    );
    expect(JSON.stringify(elsewhere)).not.toContain(SIGNING_SECRET);
    expect(JSON.stringify(controller.logger.lines)).not.toContain(SIGNING_SECRET);
    expect(JSON.stringify(service.logger.lines)).not.toContain(SIGNING_SECRET);
  }, 60_000);

  it('says in the Ready condition which secretRef cannot be used, without quoting it', async () => {
    await createSecret('bad-signing', { weak: 'whsec_c2hvcnQ=' });
    await createScheduledJob(kc, 'other-loop', { schedule: '0 4 * * *', command: 'true' });
    await createAlertConfig('missing-key', {
      jobRef: { name: 'other-loop' },
      webhooks: [
        { url: `${receiver.url}/a`, secretRef: { name: 'alert-hooks', key: 'nope' }, events: ['failed'] },
      ],
    });
    await createAlertConfig('weak-secret', {
      jobRef: { name: 'other-loop' },
      webhooks: [
        { url: `${receiver.url}/b`, secretRef: { name: 'bad-signing', key: 'weak' }, events: ['failed'] },
      ],
    });
    await until(() => readyOf('missing-key')?.status === 'False', 'missing-key to be refused');
    await until(() => readyOf('weak-secret')?.status === 'False', 'weak-secret to be refused');
    expect(readyOf('missing-key')).toMatchObject({
      reason: 'InvalidDestination',
      message: 'webhooks.0.secretRef: Secret alert-hooks has no key nope',
    });
    expect(readyOf('weak-secret')).toMatchObject({
      reason: 'InvalidDestination',
      message: 'webhooks.0.secretRef: must be whsec_ followed by the base64 of a 24 to 64 byte key',
    });
  }, 60_000);
});
