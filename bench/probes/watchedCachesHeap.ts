/**
 * `node --expose-gc -r ./test/support/registerTypeScript.js bench/probes/watchedCachesHeap.ts`:
 * what the caches of one watched namespace hold (issue 40), as heap after a full collection, apart
 * from the heap a process grows to while it parses the lists (watchedCronJobsMemory.ts measures the
 * controller's whole RSS). The namespace is seeded as bench/watchedCronJobs.ts seeds it (1,000
 * CronJobs, 10,000 Jobs, 3,000 pods), its informers started in this process as the controller
 * starts them; then the same caches with every Job's and pod's spec dropped, and with their status
 * too: what keeping less of them could save.
 */
import { startNamespaceInformers } from '../../src/controller/watchedCronJobs/watchedInformers';
import { ClusterClient } from '../../src/kube/clusterClient';
import { KubeEmulator } from '../../test/support/kube/emulator';
import { kubeConfigFor } from '../../test/support/kube/kubeconfig';
import { createMemoryLogger } from '../../test/support/memoryLogger';
import { NAMESPACE, seedCluster } from '../watchedCronJobs';
import { megabytes } from './probeService';

function collectedHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run node with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const emu = await KubeEmulator.start();
  emu.seed(emu.typeByName('namespaces'), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  seedCluster(emu, 1000, 10);
  const kubeConfig = kubeConfigFor(emu);
  const logger = createMemoryLogger();
  const ignore = () => undefined;
  const before = collectedHeap();
  const informers = startNamespaceInformers(
    { cluster: new ClusterClient(kubeConfig, logger), kubeConfig, logger },
    NAMESPACE,
    { cronJobChanged: ignore, jobChanged: ignore, podChanged: ignore },
  );
  try {
    await informers.synced;
    const counts = `${informers.cronJobs.list().length} CronJobs, ${informers.jobs.list().length} Jobs, ${informers.pods.list().length} pods`;
    const whole = collectedHeap() - before;
    const jobsAndPods = [...informers.jobs.list(), ...informers.pods.list()];
    for (const object of jobsAndPods) delete object.spec;
    const withoutSpec = collectedHeap() - before;
    for (const object of jobsAndPods) delete object.status;
    const metadataOnly = collectedHeap() - before;
    process.stdout.write(
      `the caches of ${counts}: ${megabytes(whole)}; ` +
        `the Jobs and pods without their spec: ${megabytes(withoutSpec)}; as metadata alone: ${megabytes(metadataOnly)}\n`,
    );
  } finally {
    await informers.stop();
    await emu.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
