import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { KUBE_API_TRANSCRIPTS_DIR } from '../support/kubeApiFixtures';
import {
  ENDED_BEFORE_START_ANNOTATION,
  finishedJob,
  jobNameForFireTime,
  skippedFireTimes,
} from '../../src/controller/runs/jobOutcome';

/** The Job bodies the real API server answered in transcript 09-job-pod, times filled in. */
function recordedJob(exchange: number): V1Job {
  const transcript = JSON.parse(
    readFileSync(resolve(KUBE_API_TRANSCRIPTS_DIR, '09-job-pod.json'), 'utf8'),
  ) as { exchanges: { i: number; response: { body: unknown } }[] };
  const body = transcript.exchanges.find((e) => e.i === exchange)!.response.body;
  let minute = 0;
  const withTimes = JSON.stringify(body).replace(/"<time>"/g, () => `"2026-11-23T10:0${minute++ % 10}:00Z"`);
  return JSON.parse(withTimes) as V1Job;
}

describe('finishedJob', () => {
  it('reads how a run ended from the conditions the Job controller sets', () => {
    expect(finishedJob(recordedJob(10))).toMatchObject({
      status: 'success',
      reason: { code: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
    });
    expect(finishedJob(recordedJob(17))).toMatchObject({
      status: 'failed',
      reason: { code: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
    });
    expect(finishedJob(recordedJob(20))).toMatchObject({
      status: 'timeout',
      reason: { code: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
    });
  });

  it('reads a deadline the controller set because the run could not start as a failure, not a timeout', () => {
    const ended = recordedJob(20);
    ended.metadata!.annotations = { [ENDED_BEFORE_START_ANNOTATION]: 'ImagePullBackOff' };
    expect(finishedJob(ended)).toMatchObject({ status: 'failed', reason: { code: 'DeadlineExceeded' } });
  });

  it('is null while the run goes on, or while only FailureTarget is set (pods still terminating)', () => {
    const running: V1Job = { status: { active: 1, startTime: new Date() } };
    expect(finishedJob(running)).toBeNull();
    const failing = recordedJob(17);
    failing.status!.conditions = failing.status!.conditions!.filter((c) => c.type === 'FailureTarget');
    expect(finishedJob(failing)).toBeNull();
  });
});

describe('skippedFireTimes', () => {
  const cronJob = (spec: Partial<V1CronJob['spec']> = {}): V1CronJob => ({
    spec: {
      schedule: '*/5 * * * *',
      timeZone: 'UTC',
      concurrencyPolicy: 'Forbid',
      jobTemplate: { spec: { template: { spec: { containers: [] } } } },
      ...spec,
    } as V1CronJob['spec'],
  });
  const job = (scheduled: string | undefined): V1Job => ({
    metadata: {
      annotations: scheduled ? { 'batch.kubernetes.io/cronjob-scheduled-timestamp': scheduled } : {},
    },
  });
  const finished = (finishedAt: string) => ({
    status: 'success' as const,
    startedAt: new Date('2026-11-23T10:00:01Z'),
    finishedAt: new Date(finishedAt),
    reason: { code: 'CompletionsReached', message: '' },
  });
  const noneLate = () => false;

  it('lists the fire times after the Job’s own and before it ended, under Forbid', () => {
    expect(
      skippedFireTimes(cronJob(), job('2026-11-23T10:00:00Z'), finished('2026-11-23T10:12:30Z'), noneLate),
    ).toEqual([new Date('2026-11-23T10:05:00Z'), new Date('2026-11-23T10:10:00Z')]);
    expect(
      skippedFireTimes(cronJob(), job('2026-11-23T10:00:00Z'), finished('2026-11-23T10:04:59Z'), noneLate),
    ).toEqual([]);
  });

  it('leaves out the last missed fire time when the CronJob controller started it late', () => {
    const started = new Set([jobNameForFireTime('backup', new Date('2026-11-23T10:10:00Z'))]);
    const startedLate = (fire: Date) => started.has(jobNameForFireTime('backup', fire));
    expect(
      skippedFireTimes(cronJob(), job('2026-11-23T10:00:00Z'), finished('2026-11-23T10:12:30Z'), startedLate),
    ).toEqual([new Date('2026-11-23T10:05:00Z')]);
    expect(jobNameForFireTime('backup', new Date('2026-11-23T10:10:00Z'))).toBe('backup-29923810');
  });

  it('reads the scheduled time in the CronJob’s time zone, as the CronJob controller writes it', () => {
    const hourly = cronJob({ schedule: '0 * * * *', timeZone: 'Europe/Berlin' });
    expect(
      skippedFireTimes(hourly, job('2026-11-23T11:00:00+01:00'), finished('2026-11-23T12:30:00Z'), noneLate),
    ).toEqual([new Date('2026-11-23T11:00:00Z'), new Date('2026-11-23T12:00:00Z')]);
  });

  it('skips nothing for a manual Job, a suspended CronJob, or policies that run concurrently', () => {
    const long = finished('2026-11-23T11:00:00Z');
    expect(skippedFireTimes(cronJob(), job(undefined), long, noneLate)).toEqual([]);
    expect(skippedFireTimes(cronJob({ suspend: true }), job('2026-11-23T10:00:00Z'), long, noneLate)).toEqual(
      [],
    );
    expect(
      skippedFireTimes(cronJob({ concurrencyPolicy: 'Allow' }), job('2026-11-23T10:00:00Z'), long, noneLate),
    ).toEqual([]);
  });
});
