import { lastFailureOf } from '../../src/domain/failureReasons';
import { crNameForJobName } from '../../src/kube/resources/names';
import { type ScheduledJob, scheduledJobStatusSchema } from '../../src/kube/resources/scheduledJob';
import { jobInputOfScheduledJob } from '../../src/controller/scheduledJobs/jobInput';
import { desiredStatus, statusDiffers } from '../../src/controller/scheduledJobs/status';

function scheduledJob(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): ScheduledJob {
  return {
    apiVersion: 'crondeck.dev/v1alpha1',
    kind: 'ScheduledJob',
    metadata: { name: 'backup', namespace: 'crondeck', generation: 3, ...metadata },
    spec: { schedule: '0 3 * * *', command: 'pg_dump', ...spec } as ScheduledJob['spec'],
  };
}

describe('jobInputOfScheduledJob', () => {
  it('maps the spec to the job the REST API would store', () => {
    const outcome = jobInputOfScheduledJob(
      scheduledJob({
        timeZone: 'Europe/Berlin',
        suspend: true,
        timeout: 60,
        retry: { maxAttempts: 2, baseDelay: 5 },
        description: 'nightly',
        tags: ['db'],
        lateAfterSeconds: 120,
        catchUp: { policy: 'latest', maxRuns: 10, withinSeconds: 600 },
      }),
      'crondeck',
    );
    expect(outcome).toEqual({
      ok: true,
      input: {
        name: 'backup',
        schedule: '0 3 * * *',
        command: 'pg_dump',
        timeout: 60,
        retry: { maxAttempts: 2, baseDelay: 5 },
        description: 'nightly',
        tags: ['db'],
        timezone: 'Europe/Berlin',
        enabled: false,
        lateAfterSeconds: 120,
        catchUp: { policy: 'latest', maxRuns: 10, withinSeconds: 600 },
        allowDuplicateSlots: false,
      },
    });
  });

  it('qualifies the name outside the service’s namespace, and keeps the API name of a renamed resource', () => {
    expect(jobInputOfScheduledJob(scheduledJob({}, { namespace: 'team-a' }), 'crondeck')).toMatchObject({
      input: { name: 'team-a.backup' },
    });
    const renamed = scheduledJob(
      {},
      {
        name: crNameForJobName('Nightly_Backup'),
        annotations: { 'crondeck.dev/job-name': 'Nightly_Backup' },
      },
    );
    expect(jobInputOfScheduledJob(renamed, 'crondeck')).toMatchObject({ input: { name: 'Nightly_Backup' } });
  });

  it('refuses a PagerDuty shortcut without its routing key, naming the field', () => {
    expect(
      jobInputOfScheduledJob(
        scheduledJob({ onFailure: 'https://events.pagerduty.com/v2/enqueue' }),
        'crondeck',
      ),
    ).toEqual({
      ok: false,
      message:
        'spec.onFailure: a PagerDuty destination needs ?routing_key= once, with the 32-character integration key (letters and digits)',
    });
    const withKey = 'https://events.pagerduty.com/v2/enqueue?routing_key=R0123456789abcdefABCDEF012345678';
    expect(jobInputOfScheduledJob(scheduledJob({ onFailure: withKey }), 'crondeck')).toMatchObject({
      ok: true,
    });
  });

  it('refuses a job-name annotation that would take another job’s name', () => {
    const impostor = scheduledJob({}, { name: 'evil', annotations: { 'crondeck.dev/job-name': 'backup' } });
    expect(jobInputOfScheduledJob(impostor, 'crondeck')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^metadata\.annotations\.crondeck\.dev\/job-name: /),
    });
  });

  it('refuses what the CRD schema cannot express, naming the field', () => {
    expect(jobInputOfScheduledJob(scheduledJob({ schedule: '0 0 30 2 *' }), 'crondeck')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^spec\.schedule: /),
    });
    expect(jobInputOfScheduledJob(scheduledJob({ timeZone: 'Mars/Olympus' }), 'crondeck')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^spec\.timeZone: /),
    });
    expect(jobInputOfScheduledJob(scheduledJob({ command: undefined }), 'crondeck')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^spec\.command: /),
    });
  });
});

describe('desiredStatus', () => {
  const now = new Date('2026-11-23T10:00:00.123Z');
  const observed = {
    jobId: 7,
    nextRun: new Date('2026-11-24T02:00:00Z'),
    lastRun: new Date('2026-11-23T02:00:00.456Z'),
    lastStatus: 'success' as const,
    lastFailure: null,
  };

  it('says the job id, runs, generation and a Ready condition', () => {
    expect(
      desiredStatus(scheduledJob({}), observed, { ready: true, reason: 'Reconciled', message: 'ok' }, now),
    ).toEqual({
      jobId: 7,
      nextRun: '2026-11-24T02:00:00Z',
      lastRun: '2026-11-23T02:00:00Z',
      lastStatus: 'success',
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 3,
          lastTransitionTime: '2026-11-23T10:00:00Z',
          reason: 'Reconciled',
          message: 'ok',
        },
      ],
    });
  });

  it('keeps the transition time while the condition’s status stays, so a steady state writes nothing', () => {
    const first = desiredStatus(
      scheduledJob({}),
      observed,
      { ready: true, reason: 'Reconciled', message: 'ok' },
      now,
    );
    const later = new Date('2026-11-23T11:00:00Z');
    const again = desiredStatus(
      scheduledJob({}, {}),
      observed,
      { ready: true, reason: 'Reconciled', message: 'ok' },
      later,
    );
    expect(again.conditions![0]!.lastTransitionTime).toBe(
      '2026-11-23T10:00:00Z'.replace('10:00:00', '11:00:00'),
    );
    const withStatus = { ...scheduledJob({}), status: first };
    const steady = desiredStatus(
      withStatus,
      observed,
      { ready: true, reason: 'Reconciled', message: 'ok' },
      later,
    );
    expect(steady).toEqual(first);
    expect(statusDiffers(first, steady)).toBe(false);
    const failing = desiredStatus(
      withStatus,
      observed,
      { ready: false, reason: 'InvalidSpec', message: 'bad' },
      later,
    );
    expect(failing.conditions![0]!.lastTransitionTime).toBe('2026-11-23T11:00:00Z');
    expect(statusDiffers(first, failing)).toBe(true);
  });

  it('shows the last failure: when it ended, and why', () => {
    const failed = (reason: { code: string; message: string } | null, exitCode = 137) =>
      desiredStatus(
        scheduledJob({}),
        {
          ...observed,
          lastFailure: lastFailureOf({
            status: 'failed',
            exitCode,
            startedAt: new Date('2026-11-22T02:00:00Z'),
            finishedAt: new Date('2026-11-22T02:00:07.890Z'),
            reason,
          }),
        },
        { ready: true, reason: 'Reconciled', message: 'ok' },
        now,
      );
    const oom = { code: 'OOMKilled', message: 'container "run" reached its memory limit of 64Mi' };
    expect(failed(oom)).toMatchObject({
      lastFailureTime: '2026-11-22T02:00:07Z',
      lastFailureReason: 'OOMKilled',
      lastFailureMessage: oom.message,
    });
    // A plain exit says Error, as the kubelet's terminated reason does.
    expect(failed(null, 3)).toMatchObject({ lastFailureReason: 'Error', lastFailureMessage: 'exit code 3' });
    const status = failed(oom);
    expect(scheduledJobStatusSchema.safeParse(status).success).toBe(true);
  });
});

describe('the Suspended condition', () => {
  const ready = { ready: true, reason: 'Reconciled', message: 'ok' };
  const observed = {
    jobId: 7,
    nextRun: null,
    lastRun: null,
    lastStatus: 'failed' as const,
    lastFailure: null,
  };
  const reason = 'suspended after 3 failed runs in a row (suspendAfterFailures: 3)';
  const suspendedOf = (status: ReturnType<typeof desiredStatus>) =>
    status.conditions?.find((condition) => condition.type === 'Suspended');

  it('is absent on a job its policy never suspended, True while suspended, False once resumed', () => {
    const at = new Date('2026-11-23T10:00:00Z');
    const plain = desiredStatus(scheduledJob({}), { ...observed, suspendedReason: null }, ready, at);
    expect(suspendedOf(plain)).toBeUndefined();

    const suspended = desiredStatus(scheduledJob({}), { ...observed, suspendedReason: reason }, ready, at);
    expect(suspendedOf(suspended)).toEqual({
      type: 'Suspended',
      status: 'True',
      observedGeneration: 3,
      lastTransitionTime: '2026-11-23T10:00:00Z',
      reason: 'TooManyFailures',
      message: reason,
    });
    // The Ready condition stays first and unchanged: the CronJob is in place, suspended.
    expect(suspended.conditions![0]).toMatchObject({ type: 'Ready', status: 'True' });

    const later = new Date('2026-11-23T12:00:00Z');
    const resumed = desiredStatus(
      { ...scheduledJob({}), status: suspended },
      { ...observed, suspendedReason: null },
      ready,
      later,
    );
    expect(suspendedOf(resumed)).toMatchObject({
      status: 'False',
      reason: 'Resumed',
      lastTransitionTime: '2026-11-23T12:00:00Z',
    });
  });

  it('refuses a ScheduledJob whose alertPolicy the domain refuses, naming the field', () => {
    const bad = scheduledJob({
      alertPolicy: { maintenance: [{ schedule: '0 0 30 2 *', durationSeconds: 600 }] },
    });
    expect(jobInputOfScheduledJob(bad, 'crondeck')).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^spec\.alertPolicy\.maintenance\.0\.schedule: day-of-month and month never meet/,
      ),
    });
  });
});
