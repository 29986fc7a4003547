import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wallTimeOf } from '../../src/domain/timezone';
import { createScheduledJob, NAMESPACE } from './cluster';
import { MINUTE, SlotCluster } from './slotCluster';

const ZONE = 'America/New_York';
const HOUR = 60 * MINUTE;

/** The next instant after `after` at which the zone's clocks go back (its UTC offset shrinks). */
function nextFallBack(after: Date): Date {
  const offset = (at: number) => wallTimeOf(at, ZONE) - at;
  for (let at = Math.ceil(after.getTime() / HOUR) * HOUR; ; at += HOUR) {
    if (offset(at) < offset(at - HOUR)) return new Date(at);
  }
}

/**
 * kubernetes#121594: in a zone whose clocks go back, the CronJob controller fires a repeated wall
 * time twice (robfig/cron walks the schedule in the zone's time, which shows 01:30 twice), and both
 * Jobs would run. In Crondeck's ledger the second fire is a repeat of the one slot: its runner's
 * claim is refused, so the command runs once and the slot is `ran`, its reason naming the
 * prevented run. The cluster's clock is set to the zone's next fall-back.
 */
describe('the autumn DST double fire of a CronJob', () => {
  let cluster: SlotCluster;
  let dir: string;
  // 01:30 EDT, an hour before 01:30 EST: one slot, two fires.
  const fallBack = nextFallBack(new Date(Date.now() + 24 * HOUR));
  const slot = new Date(fallBack.getTime() - 30 * MINUTE);
  const repeat = new Date(fallBack.getTime() + 30 * MINUTE);

  beforeAll(async () => {
    // The clock is ahead of real time here: retention must not take the runs, which pods time by it.
    cluster = await SlotCluster.start(new Date(slot.getTime() - 5 * MINUTE), {
      SERVICE_RETENTION_DAYS: '3650',
    });
    dir = mkdtempSync(join(tmpdir(), 'crondeck-dst-'));
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fires 01:30 twice in America/New_York, runs the command once, and judges the one slot ran', async () => {
    const marker = join(dir, 'runs');
    await createScheduledJob(cluster.kc, 'nightly', {
      schedule: '30 1 * * *',
      timeZone: ZONE,
      command: `echo "$CRONDECK_SCHEDULED_TIME" >> ${marker}`,
    });
    const jobId = await cluster.jobIdOf('nightly');

    cluster.clock.set(new Date(slot.getTime() + 1000));
    const first = cluster.emu.syncCronJob(NAMESPACE, 'nightly')!;
    expect(first.metadata).toMatchObject({
      name: `nightly-${slot.getTime() / MINUTE}`,
      annotations: {
        'batch.kubernetes.io/cronjob-scheduled-timestamp': expect.stringMatching(/T01:30:00-04:00$/),
      },
    });
    expect(await cluster.runJob(first)).toBe(0);

    // An hour later the wall clock shows 01:30 again, and the CronJob controller fires again.
    cluster.clock.set(new Date(repeat.getTime() + 1000));
    const second = cluster.emu.syncCronJob(NAMESPACE, 'nightly')!;
    expect(second.metadata).toMatchObject({
      name: `nightly-${repeat.getTime() / MINUTE}`,
      annotations: {
        'batch.kubernetes.io/cronjob-scheduled-timestamp': expect.stringMatching(/T01:30:00-05:00$/),
      },
    });
    // Its runner is refused the slot: it ends well without running the command.
    expect(await cluster.runJob(second)).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe(`${slot.toISOString()}\n`);

    const [execution] = await cluster.waitForExecutions(jobId, 1);
    expect(execution).toMatchObject({
      status: 'success',
      scheduledAt: slot.toISOString(),
      trigger: 'schedule',
    });
    // The controller does not record the refused Job as a run that never reported.
    await cluster.untilSettledByController(second);
    expect(await cluster.executions(jobId)).toHaveLength(1);

    expect(await cluster.judgedSlots(jobId, new Date(repeat.getTime() + 2 * MINUTE))).toEqual([
      expect.objectContaining({
        scheduledAt: slot.toISOString(),
        outcome: 'ran',
        executionIds: [execution!.id],
        reason: `a second run for this slot was prevented (run ${second.metadata.uid})`,
      }),
    ]);
  }, 60_000);
});
