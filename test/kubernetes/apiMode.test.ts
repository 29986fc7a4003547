import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { findJob } from '../../src/store/jobs';
import { resourceOfJob } from '../../src/store/resourceJobs';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { NAMESPACE, runController, serveOnCluster, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the REST API in Kubernetes mode', () => {
  let emu: KubeEmulator;
  let db: Database;

  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await emu?.stop();
    await db.close();
  });

  it('needs a PostgreSQL server, and says so', async () => {
    ({ emu } = await startCluster());
    if (onPostgresServer) return;
    await expect(serveOnCluster(db, kubeConfigFor(emu))).rejects.toThrow(
      'SERVICE_RUNTIME=kubernetes needs a PostgreSQL server (DATABASE_URL)',
    );
  });

  it('creates, toggles, runs, pauses and deletes through the cluster, keeping the id the API answered', async () => {
    if (!onPostgresServer) return;
    const cluster = await startCluster();
    emu = cluster.emu;
    const controller = await runController(cluster.kc, db);
    let service: RunningService | undefined;
    try {
      service = await serveOnCluster(db, cluster.kc);
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(service!.url + path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Obj };
      };
      const get = (resource: string, name: string): Obj | undefined =>
        emu.objects(resource, NAMESPACE).find((o) => o.metadata?.name === name);

      const created = await call('POST', '/api/jobs', {
        name: 'nightly',
        schedule: '0 3 * * *',
        command: 'true',
      });
      expect(created.status).toBe(201);
      const id: number = created.body.id;
      expect(get('scheduledjobs', 'nightly')?.metadata.labels).toMatchObject({
        'crondeck.dev/job-id': String(id),
      });
      await until(() => get('cronjobs', 'nightly'), 'the CronJob');
      await until(async () => (await resourceOfJob(db.pool, id))?.name === 'nightly', 'the row adopted');
      expect((await db.pool.query('SELECT count(*)::int AS n FROM jobs')).rows[0].n).toBe(1);

      expect((await call('PATCH', `/api/jobs/${id}/toggle`, { enabled: false })).status).toBe(200);
      expect(get('scheduledjobs', 'nightly')?.spec.suspend).toBe(true);
      await until(() => get('cronjobs', 'nightly')?.spec.suspend === true, 'the CronJob suspended');
      await call('PATCH', `/api/jobs/${id}/toggle`, { enabled: true });
      await until(() => get('cronjobs', 'nightly')?.spec.suspend === false, 'the CronJob resumed');

      expect((await call('POST', `/api/jobs/${id}/run`)).status).toBe(200);
      const manual = emu
        .objects('jobs', NAMESPACE)
        .find((job) => job.metadata.name.startsWith('nightly-manual-'));
      expect(manual?.metadata.annotations).toMatchObject({ 'cronjob.kubernetes.io/instantiate': 'manual' });

      expect((await call('POST', '/api/scheduler/pause', {})).status).toBe(200);
      expect(get('cronjobs', 'nightly')?.spec.suspend).toBe(true);
      expect((await call('POST', '/api/scheduler/resume')).status).toBe(200);
      expect(get('cronjobs', 'nightly')?.spec.suspend).toBe(false);

      expect((await call('DELETE', `/api/jobs/${id}`)).status).toBe(200);
      await until(() => !get('scheduledjobs', 'nightly'), 'the ScheduledJob gone');
      expect(await findJob(db.pool, id)).toBeNull();

      // A cluster that cannot be reached: the API answers 503 and stores nothing.
      await emu.stop();
      const refused = await call('POST', '/api/jobs', { name: 'later', schedule: '@daily', command: 'true' });
      expect(refused.status).toBe(503);
      expect(
        (await db.pool.query(`SELECT count(*)::int AS n FROM jobs WHERE name = 'later'`)).rows[0].n,
      ).toBe(0);
    } finally {
      await service?.stop();
      await controller.stop();
    }
  });
});
