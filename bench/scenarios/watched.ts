/**
 * Issue 40's scale: `crondeck controller` watching 1,000 plain CronJobs among 10,000 Jobs (10 each,
 * the pods of the last 3), against the emulator, on a database of its own
 * (bench/watchedCronJobs.ts). Measured: its resident memory on an empty namespace, with the
 * cluster's CronJobs and Jobs before any CronJobWatch, with a CronJobWatch in their namespace that
 * selects none of them, and once one selects them all and every run is recorded; held to the chart's memory limit for the controller.
 */
import { type BenchContext, formatMegabytes, markdownTable } from '../harness';
import { measureWatchedCronJobs, PODS_KEPT } from '../watchedCronJobs';

const CRONJOBS = Number(process.env.BENCH_WATCHED_CRONJOBS ?? 1000);
const JOBS_PER_CRONJOB = 10;
/** The chart's `controller.resources.limits.memory`. */
const CHART_LIMIT_BYTES = 512 * 1024 * 1024;

export async function run(ctx: BenchContext): Promise<void> {
  const measured = await measureWatchedCronJobs({
    databaseUrl: await ctx.freshDatabase('crondeck_watched'),
    cronJobs: CRONJOBS,
    jobsPerCronJob: JOBS_PER_CRONJOB,
    log: (line) => console.log(`  ${line}`),
  });
  const { empty, seeded, selectedNone, watched } = measured;
  const peak = Math.max(empty.peak, seeded.peak, selectedNone.peak, watched.peak);
  ctx.bar({
    measure: `controller memory watching ${CRONJOBS.toLocaleString('en')} CronJobs among ${measured.jobs.toLocaleString('en')} Jobs`,
    target: `≤ ${formatMegabytes(CHART_LIMIT_BYTES)} (the chart's limit)`,
    measured: `${formatMegabytes(peak)} peak`,
    met: peak <= CHART_LIMIT_BYTES,
  });
  const perCronJob = (watched.rss - empty.rss) / CRONJOBS;
  ctx.report(
    'Watched CronJobs',
    markdownTable(
      ['moment', 'controller RSS', 'peak'],
      [
        ['an empty namespace', formatMegabytes(empty.rss), formatMegabytes(empty.peak)],
        [
          `${CRONJOBS} CronJobs, ${measured.jobs} Jobs, ${measured.pods} pods, no watch`,
          formatMegabytes(seeded.rss),
          formatMegabytes(seeded.peak),
        ],
        [
          'a watch in their namespace selecting none of them',
          formatMegabytes(selectedNone.rss),
          formatMegabytes(selectedNone.peak),
        ],
        [
          `all watched, every run recorded (${Math.round(measured.recordedInMs / 1000)} s)`,
          formatMegabytes(watched.rss),
          formatMegabytes(watched.peak),
        ],
      ],
    ) +
      `\n\nPer watched CronJob (its ${JOBS_PER_CRONJOB} Jobs and ${PODS_KEPT} pods included): ` +
      `${(perCronJob / 1024).toFixed(1)} KiB over the empty controller.`,
  );
}
