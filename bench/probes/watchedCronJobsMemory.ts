/**
 * `node -r ./test/support/registerTypeScript.js bench/probes/watchedCronJobsMemory.ts` (with
 * DATABASE_URL: a PostgreSQL server, of which it uses a fresh database; `npm run build` first): the
 * controller's resident memory watching 1,000 plain CronJobs among 10,000 Jobs (issue 40), at four
 * moments (bench/watchedCronJobs.ts), and the cost per watched CronJob. BENCH_WATCHED_CRONJOBS and
 * BENCH_JOBS_PER_CRONJOB change the counts. `npm run bench -- watched` measures the same.
 */
import { freshDatabase, measureWatchedCronJobs, PODS_KEPT } from '../watchedCronJobs';
import { megabytes } from './probeService';

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL: a PostgreSQL server (npm run -s db:throwaway -- start)');
  const jobsPerCronJob = Number(process.env.BENCH_JOBS_PER_CRONJOB ?? 10);
  const measured = await measureWatchedCronJobs({
    databaseUrl: await freshDatabase(serverUrl),
    cronJobs: Number(process.env.BENCH_WATCHED_CRONJOBS ?? 1000),
    jobsPerCronJob,
    log: (line) => process.stdout.write(`  ${line}\n`),
  });
  const { cronJobs, jobs, pods, empty, seeded, selectedNone, watched } = measured;
  const line = (moment: string, memory: { rss: number; peak: number }) =>
    process.stdout.write(`${moment}: RSS ${megabytes(memory.rss)}, peak ${megabytes(memory.peak)}\n`);
  line('an empty namespace', empty);
  line(`${cronJobs} CronJobs, ${jobs} Jobs, ${pods} pods, no watch`, seeded);
  line('a watch in their namespace selecting none of them', selectedNone);
  line(
    `all ${cronJobs} watched, every run recorded (in ${Math.round(measured.recordedInMs / 1000)} s)`,
    watched,
  );
  const perCronJob = (watched.rss - empty.rss) / cronJobs;
  process.stdout.write(
    `per watched CronJob (its ${jobsPerCronJob} Jobs and ${PODS_KEPT} pods included), over the empty controller: ` +
      `${(perCronJob / 1024).toFixed(1)} KiB resident\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
