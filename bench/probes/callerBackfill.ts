/**
 * Issue 39: under SERVICE_AUTH=kubernetes a backfill's Jobs are created by the service, with the
 * caller's token, before it answers. Measures how long `POST /api/jobs/:id/backfill` of 1,000 slots
 * takes against the emulated API server (in this process, behind the recording proxy the tests use),
 * with the controller running.
 *
 *   DATABASE_URL=postgres://... node -r ./test/support/registerTypeScript.js bench/probes/callerBackfill.ts [slots]
 *
 * Kubernetes mode needs a PostgreSQL server (`eval "$(bash scripts/throwaway-postgres.sh start)"`).
 */
import { runController, startCluster, until } from '../../test/kubernetes/cluster';
import { callAs, NAMESPACE_A, serveWithKubernetesAuth, setUpPeople } from '../../test/kubernetes/rbacCluster';
import { createTestDatabase } from '../../test/support/database';

const SLOTS = Number(process.argv[2] ?? 1000);

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('set DATABASE_URL to a PostgreSQL server');
  const db = await createTestDatabase();
  const cluster = await startCluster();
  const people = await setUpPeople(cluster.emu);
  const controller = await runController(cluster.kc, db);
  const { service, proxy } = await serveWithKubernetesAuth(cluster.emu, db, people.service);
  try {
    const created = await callAs(service.url, people.editor, 'POST', '/api/jobs', {
      name: 'minutely',
      schedule: '* * * * *',
      command: 'true',
    });
    await until(
      () => cluster.emu.objects('cronjobs', NAMESPACE_A).find((each) => each.metadata?.name === 'minutely'),
      'the CronJob',
    );
    const end = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
    const started = performance.now();
    const answer = await callAs(service.url, people.editor, 'POST', `/api/jobs/${created.body.id}/backfill`, {
      from: new Date(end - (SLOTS - 1) * 60_000).toISOString(),
      to: new Date(end).toISOString(),
      concurrency: 5,
    });
    const ms = performance.now() - started;
    const jobs = cluster.emu.objects('jobs', NAMESPACE_A).filter((job) => job.spec?.suspend).length;
    console.log(
      `backfill of ${SLOTS} slots: ${answer.status} in ${Math.round(ms)} ms; ${jobs} Jobs made suspended by the ` +
        `caller's token (${proxy.requests.filter((each) => each.method === 'POST' && /\/jobs\?/.test(each.url)).length} creations through the proxy)`,
    );
  } finally {
    await service.stop();
    await controller.stop();
    await proxy.stop();
    await cluster.emu.stop();
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
