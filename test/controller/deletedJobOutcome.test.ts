import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import {
  deletedJobOutcome,
  JOB_DELETED,
  REPLACED,
  replacedByNewerRun,
} from '../../src/controller/runs/deletedJobOutcome';
import { DeletedJobs } from '../../src/controller/runs/deletedJobs';
import { neverStarted, SCHEDULED_TIMESTAMP_ANNOTATION } from '../../src/controller/runs/jobOutcome';

const scheduledAt = '2026-11-23T10:00:00Z';
const deletedAt = new Date('2026-11-23T10:01:00.400Z');

/** A Job the CronJob controller made for `scheduledAt`, as last seen before it was deleted. */
function job(overrides: { conditions?: object[]; annotations?: Record<string, string> } = {}): V1Job {
  return {
    metadata: {
      name: 'nightly-29400000',
      namespace: 'ops',
      uid: 'job-uid',
      creationTimestamp: new Date(scheduledAt),
      annotations: overrides.annotations ?? { [SCHEDULED_TIMESTAMP_ANNOTATION]: '2026-11-23T11:00:00+01:00' },
    },
    status: {
      startTime: new Date('2026-11-23T10:00:01Z'),
      ...(overrides.conditions ? { conditions: overrides.conditions } : { active: 1 }),
    },
  } as V1Job;
}

function cronJob(concurrencyPolicy: string, lastScheduleTime: string | undefined): V1CronJob {
  return {
    metadata: { name: 'nightly', namespace: 'ops', uid: 'cron-uid' },
    spec: {
      schedule: '* * * * *',
      concurrencyPolicy,
      jobTemplate: { spec: { template: { spec: { containers: [] } } } },
    },
    status: lastScheduleTime ? { lastScheduleTime: new Date(lastScheduleTime) } : {},
  };
}

const failed = {
  type: 'Failed',
  status: 'True',
  reason: 'DeadlineExceeded',
  message: 'Job was active longer than specified deadline',
  lastTransitionTime: new Date('2026-11-23T10:00:40Z'),
};

describe('deletedJobOutcome', () => {
  it('reads a Job that had finished (deleted past the history limits) as its conditions say', () => {
    // Whatever the CronJob says: it ended before it was deleted.
    expect(
      deletedJobOutcome(job({ conditions: [failed] }), deletedAt, cronJob('Replace', '2026-11-23T10:01:00Z')),
    ).toEqual({
      status: 'timeout',
      startedAt: new Date('2026-11-23T10:00:01Z'),
      finishedAt: new Date('2026-11-23T10:00:40Z'),
      reason: { code: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
    });
  });

  it('reads a Job deleted while it ran as failed when it was deleted: Replaced when a newer run took its place', () => {
    expect(deletedJobOutcome(job(), deletedAt, cronJob('Replace', '2026-11-23T10:01:00Z'))).toEqual({
      status: 'failed',
      startedAt: new Date('2026-11-23T10:00:01Z'),
      finishedAt: deletedAt,
      reason: REPLACED,
    });
    expect(REPLACED.message).toContain('a newer run replaced this one');
  });

  it('reads a Job deleted while it ran by anyone else as JobDeleted', () => {
    for (const cron of [
      cronJob('Forbid', '2026-11-23T10:01:00Z'),
      cronJob('Allow', '2026-11-23T10:01:00Z'),
      // Replace, but no newer fire time came: deleted by hand.
      cronJob('Replace', scheduledAt),
      cronJob('Replace', undefined),
      // Its CronJob is gone (its ScheduledJob deleted).
      undefined,
    ]) {
      expect(deletedJobOutcome(job(), deletedAt, cron)).toMatchObject({
        status: 'failed',
        reason: JOB_DELETED,
      });
    }
  });

  it('starts a Job that never started at its creation, and never after its deletion', () => {
    const unstarted = job();
    delete unstarted.status!.startTime;
    expect(deletedJobOutcome(unstarted, deletedAt, undefined).startedAt).toEqual(new Date(scheduledAt));
    unstarted.metadata!.creationTimestamp = new Date('2026-11-23T10:05:00Z');
    expect(deletedJobOutcome(unstarted, deletedAt, undefined).startedAt).toEqual(deletedAt);
  });
});

describe('replacedByNewerRun', () => {
  it('holds for a scheduled Job of a Replace CronJob whose last fire time is past the Job’s own', () => {
    expect(replacedByNewerRun(cronJob('Replace', '2026-11-23T10:01:00Z'), job())).toBe(true);
    expect(replacedByNewerRun(cronJob('Replace', '2026-11-23T10:00:00Z'), job())).toBe(false);
  });

  it('never holds for a manual, catch-up or backfill Job: the CronJob controller replaces only its own', () => {
    const manual = job({ annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' } });
    const catchUp = job({ annotations: { 'crondeck.dev/scheduled-time': scheduledAt } });
    for (const kubeJob of [manual, catchUp]) {
      expect(replacedByNewerRun(cronJob('Replace', '2026-11-23T10:01:00Z'), kubeJob)).toBe(false);
    }
  });
});

describe('DeletedJobs', () => {
  const pod = (uid: string, phase: string) => ({
    metadata: {
      uid,
      namespace: 'ops',
      ownerReferences: [{ kind: 'Job', name: 'nightly-29400000', uid: 'job-uid', apiVersion: 'batch/v1' }],
    },
    status: { phase },
  });

  it('keeps deleted Jobs by name and UID, with their pods’ final states, until let go', () => {
    const deleted = new DeletedJobs();
    deleted.keep(job(), 'job-uid', deletedAt, [pod('pod-1', 'Running')]);
    const [kept] = deleted.named('ops', 'nightly-29400000');
    expect(kept).toMatchObject({ uid: 'job-uid', deletedAt });
    expect(deleted.has(job())).toBe(true);
    expect(deleted.named('ops', 'other')).toEqual([]);

    deleted.podDeleted(pod('pod-1', 'Failed'));
    expect([...kept!.pods.values()].map((p) => p.status?.phase)).toEqual(['Failed']);

    deleted.letGo(kept!);
    expect(deleted.named('ops', 'nightly-29400000')).toEqual([]);
    expect(deleted.has(job())).toBe(false);
  });
});

describe('a Job that never started (neverStarted)', () => {
  const suspendedJob = (status: V1Job['status'] = {}): V1Job =>
    ({
      metadata: { name: 'nightly-29400000-backfill7', uid: 'uid' },
      spec: { suspend: true },
      status,
    }) as V1Job;

  it('is one suspended since it was made, with no start, no pod counted and none seen', () => {
    expect(neverStarted(suspendedJob(), [])).toBe(true);
  });

  it('is not one that ran before it was suspended, has a pod, or was never suspended', () => {
    expect(neverStarted(suspendedJob({ failed: 1 }), [])).toBe(false);
    expect(neverStarted(suspendedJob({ succeeded: 1 }), [])).toBe(false);
    expect(neverStarted(suspendedJob({ active: 1 }), [])).toBe(false);
    expect(neverStarted(suspendedJob({ startTime: new Date(scheduledAt) }), [])).toBe(false);
    expect(neverStarted(suspendedJob(), [{ metadata: { name: 'pod' } }])).toBe(false);
    expect(neverStarted({ ...suspendedJob(), spec: { suspend: false } } as V1Job, [])).toBe(false);
  });
});
