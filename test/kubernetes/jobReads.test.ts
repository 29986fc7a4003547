import { reportTokenFor } from '../../src/domain/reportToken';
import { renderJob } from '../../src/http/routes/jobs';
import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import {
  createScheduledJob,
  NAMESPACE,
  REPORT_SECRET,
  runController,
  serveOnCluster,
  startCluster,
  until,
} from './cluster';

/**
 * In Kubernetes mode the rows of jobs are written by the controller (mirroring ScheduledJobs) and
 * by pods' reports, not by the service that answers GET /api/jobs/:id. Its next read after such a
 * write must show it, byte for byte as an uncached read.
 */
describe('GET /api/jobs/:id in Kubernetes mode', () => {
  let emu: KubeEmulator | undefined;
  let db: Database;

  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await emu?.stop();
    await db.close();
  });

  it('follows the ScheduledJob as the controller mirrors it, and the runs pods report', async () => {
    // Kubernetes mode needs a PostgreSQL server (apiMode.test.ts checks the refusal).
    if (!onPostgresServer) return;
    const cluster = await startCluster();
    emu = cluster.emu;
    const controller = await runController(cluster.kc, db);
    let service: RunningService | undefined;
    try {
      service = await serveOnCluster(db, cluster.kc);
      const readFresh = async (id: number) => {
        const response = await fetch(`${service!.url}/api/jobs/${id}`);
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(text).toBe(renderJob(await service!.jobs.get(id)).toString());
        return JSON.parse(text) as Record<string, unknown>;
      };
      const mirrored = () => findJobForResource(db.pool, NAMESPACE, 'mirrored');

      await createScheduledJob(cluster.kc, 'mirrored', { schedule: '0 3 * * *', command: 'make report' });
      const { id } = await until(mirrored, 'the job mirrored');
      expect(await readFresh(id)).toMatchObject({ schedule: '0 3 * * *', command: 'make report' });

      // As `kubectl patch sj mirrored --type merge` would; the controller updates the row.
      await controller.manager.cluster.patchScheduledJob(NAMESPACE, 'mirrored', {
        spec: { schedule: '30 4 * * *', suspend: true },
      });
      await until(async () => (await mirrored())?.schedule === '30 4 * * *', 'the edit mirrored');
      expect(await readFresh(id)).toMatchObject({ schedule: '30 4 * * *', enabled: false, nextRun: null });

      const report = await fetch(`${service.url}/api/jobs/${id}/reports`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${reportTokenFor(REPORT_SECRET, id)}`,
        },
        body: JSON.stringify({
          podUid: 'pod-1',
          attempt: 0,
          final: true,
          status: 'failed',
          exitCode: 3,
          startedAt: '2026-11-23T10:00:00.000Z',
          finishedAt: '2026-11-23T10:00:02.500Z',
        }),
      });
      expect(report.status).toBe(201);
      expect(await readFresh(id)).toMatchObject({
        lastStatus: 'failed',
        lastRun: '2026-11-23T10:00:00.000Z',
      });

      await controller.manager.cluster.deleteScheduledJob(NAMESPACE, 'mirrored');
      await until(async () => !(await mirrored()), 'the row deleted');
      expect((await fetch(`${service.url}/api/jobs/${id}`)).status).toBe(404);
    } finally {
      await service?.stop();
      await controller.stop();
    }
  });
});
