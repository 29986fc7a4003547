/**
 * Start-up against an API server whose CRD storage is still initialising: a real kube-apiserver
 * answers the first lists of a new CRD with 429 "storage is (re)initializing" and Retry-After: 1
 * (the emulator's fault injection answers the same). `crondeck serve` in Kubernetes mode and
 * `crondeck controller` wait as asked and start, instead of exiting or failing their watches.
 */
import { ClusterClient } from '../../src/kube/clusterClient';
import { systemClock } from '../../src/domain/clock';
import { KubernetesRuntime } from '../../src/runtime/kubernetes/kubernetesRuntime';
import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { createMemoryLogger } from '../support/memoryLogger';
import { createScheduledJob, NAMESPACE, runController, serveOnCluster, startCluster, until } from './cluster';

const ASKED_TO_WAIT = 'the API server asked to wait; sending the request again';

describe('start-up while the storage of the CRDs initialises', () => {
  let emu: KubeEmulator;
  let db: Database;

  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await emu?.stop();
    await db.close();
  });

  it("the Kubernetes runtime's first list waits as the server asks, then starts", async () => {
    const cluster = await startCluster();
    emu = cluster.emu;
    emu.answerStorageInitializing('scheduledjobs', 2);
    emu.resetRequestCounts();
    const logger = createMemoryLogger();
    const runtime = new KubernetesRuntime({
      cluster: new ClusterClient(cluster.kc, logger),
      pool: db.pool,
      namespace: NAMESPACE,
      watchNamespace: NAMESPACE,
      clock: systemClock,
      logger,
    });
    await expect(runtime.start()).resolves.toBeUndefined();
    expect(emu.requestCounts()['list scheduledjobs']).toBe(3);
    expect(logger.lines.filter((line) => line.msg === ASKED_TO_WAIT)).toEqual([
      expect.objectContaining({ level: 'info', status: 429, delayMs: 1000, attempt: 1, method: 'GET' }),
      expect.objectContaining({ level: 'info', status: 429, delayMs: 1000, attempt: 2, method: 'GET' }),
    ]);
  });

  it('crondeck serve in Kubernetes mode starts and serves the API', async () => {
    if (!onPostgresServer) return; // Kubernetes mode needs a PostgreSQL server (apiMode.test.ts).
    const cluster = await startCluster();
    emu = cluster.emu;
    emu.answerStorageInitializing('scheduledjobs', 2);
    let service: RunningService | undefined;
    try {
      service = await serveOnCluster(db, cluster.kc);
      const created = await fetch(`${service.url}/api/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'nightly', schedule: '0 3 * * *', command: 'true' }),
      });
      expect(created.status).toBe(201);
      expect(emu.objects('scheduledjobs', NAMESPACE).map((o) => o.metadata.name)).toEqual(['nightly']);
    } finally {
      await service?.stop();
    }
  });

  it('crondeck controller lists, watches and reconciles without a failed watch', async () => {
    const cluster = await startCluster();
    emu = cluster.emu;
    for (const resource of ['scheduledjobs', 'alertconfigs']) emu.answerStorageInitializing(resource, 2);
    emu.resetRequestCounts();
    const controller = await runController(cluster.kc, db);
    try {
      const counts = emu.requestCounts();
      // Each informer's list was answered 429 twice, then served once; each watch opened once.
      expect([counts['list scheduledjobs'], counts['list alertconfigs']]).toEqual([3, 3]);
      expect([counts['watch scheduledjobs'], counts['watch alertconfigs']]).toEqual([1, 1]);
      const lines = controller.logger.lines;
      expect(lines.filter((line) => line.msg === ASKED_TO_WAIT)).toHaveLength(4);
      expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);

      await createScheduledJob(cluster.kc, 'nightly', { schedule: '0 3 * * *', command: 'true' });
      await until(
        () => emu.objects('cronjobs', NAMESPACE).find((o) => o.metadata.name === 'nightly'),
        'the CronJob',
      );
    } finally {
      await controller.stop();
    }
  });
});
