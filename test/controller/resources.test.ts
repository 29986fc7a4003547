import fc from 'fast-check';
import { scheduledJobCrd, alertConfigCrd } from '../../src/controller/crds/definitions';
import { labelValueFor } from '../../src/kube/labels';
import { runDeadlineSeconds } from '../../src/controller/desired/runDeadline';
import { alertConfigSpecSchema } from '../../src/kube/resources/alertConfig';
import { alertConfigOfResource, alertConfigOfShortcuts } from '../../src/kube/resources/alertShortcuts';
import {
  crNameForJobName,
  jobNameAnnotationProblem,
  jobNameOfScheduledJob,
} from '../../src/kube/resources/names';
import { scheduledJobSpecSchema } from '../../src/kube/resources/scheduledJob';
import { JOB_NAME_PATTERN } from '../../src/domain/job';
import { validateAgainstCrd } from '../support/openapi/kubernetesSchemas';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const minimal = { schedule: '*/5 * * * *', command: 'true' };

describe('crNameForJobName', () => {
  it('keeps a name that already is a DNS-1123 subdomain', () => {
    expect(crNameForJobName('backup')).toBe('backup');
    expect(crNameForJobName('db.vacuum-1')).toBe('db.vacuum-1');
  });

  it('rewrites other names and appends a hash of the original', () => {
    expect(crNameForJobName('Nightly_Backup')).toMatch(/^nightly-backup-[0-9a-f]{8}$/);
    expect(crNameForJobName('a._b')).toMatch(/^a\.b-[0-9a-f]{8}$/);
    expect(crNameForJobName('-_-')).toMatch(/^job-[0-9a-f]{8}$/);
  });

  it('keeps names that differ only in case or punctuation apart', () => {
    const names = ['Backup', 'backup', 'BACKUP', 'back_up', 'back-up', 'Back-Up'];
    expect(new Set(names.map(crNameForJobName)).size).toBe(names.length);
  });

  it('gives a valid, stable CR name for every API name', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,199}$/), (name) => {
        expect(name).toMatch(JOB_NAME_PATTERN);
        const crName = crNameForJobName(name);
        expect(crName).toMatch(DNS1123_SUBDOMAIN);
        expect(crName.length).toBeLessThanOrEqual(253);
        expect(crNameForJobName(name)).toBe(crName);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the API name back from the annotation, else the CR name', () => {
    expect(jobNameOfScheduledJob({ name: 'backup' })).toBe('backup');
    const rewritten = {
      name: crNameForJobName('Nightly_Backup'),
      annotations: { 'crondeck.dev/job-name': 'Nightly_Backup' },
    };
    expect(jobNameOfScheduledJob(rewritten)).toBe('Nightly_Backup');
    expect(jobNameAnnotationProblem(rewritten)).toBeNull();
  });

  it('refuses an annotation that would give a resource another job’s name', () => {
    expect(
      jobNameAnnotationProblem({ name: 'evil', annotations: { 'crondeck.dev/job-name': 'backup' } }),
    ).toBe(
      'metadata.annotations.crondeck.dev/job-name: the job name "backup" belongs to the resource named ' +
        '"backup"; remove the annotation or rename the resource',
    );
    expect(jobNameAnnotationProblem({ name: 'backup' })).toBeNull();
  });
});

describe('labelValueFor', () => {
  it('keeps short names and bounds long ones to a valid 63-character value', () => {
    expect(labelValueFor('backup')).toBe('backup');
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/), (name) => {
        const value = labelValueFor(name);
        expect(value.length).toBeLessThanOrEqual(63);
        expect(value).toMatch(LABEL_VALUE);
      }),
    );
  });
});

describe('runDeadlineSeconds', () => {
  it('has no bound without a timeout', () => {
    expect(runDeadlineSeconds(0, { maxAttempts: 3, baseDelay: 10 })).toBeUndefined();
  });

  it('adds every attempt, its stop grace, the backoff and the start-up overhead', () => {
    expect(runDeadlineSeconds(60, undefined)).toBe(300 + 60 + 30);
    // delays 100, 200, 300 (capped), 300
    expect(runDeadlineSeconds(60, { maxAttempts: 4, baseDelay: 100 })).toBe(
      300 + 5 * 90 + 100 + 200 + 300 + 300,
    );
  });
});

describe('the ScheduledJob spec schema', () => {
  it('applies the defaults the CRD declares', () => {
    expect(scheduledJobSpecSchema.parse(minimal)).toEqual({
      ...minimal,
      suspend: false,
      timeout: 0,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      lateAfterSeconds: 60,
      allowDuplicateSlots: false,
    });
    expect(scheduledJobSpecSchema.parse({ ...minimal, catchUp: { policy: 'all' } }).catchUp).toEqual({
      policy: 'all',
      maxRuns: 10,
      withinSeconds: 3600,
    });
    expect(scheduledJobSpecSchema.parse({ ...minimal, retry: {} }).retry).toEqual({
      maxAttempts: 0,
      baseDelay: 30,
    });
  });

  const refused: [string, object][] = [
    ['a bad cron range', { schedule: '61 * * * *' }],
    ['six fields', { schedule: '0 */1 * * * *' }],
    ['a TZ= prefix', { schedule: 'TZ=UTC 0 * * * *' }],
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }],
    ['a timeout over a day', { timeout: 86_401 }],
    ['too many retries', { retry: { maxAttempts: 11 } }],
    ['an unknown concurrency policy', { concurrencyPolicy: 'Sometimes' }],
    [
      'a value and a valueFrom',
      { env: [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] },
    ],
    [
      'a valueFrom with two sources',
      {
        env: [
          {
            name: 'A',
            valueFrom: { secretKeyRef: { name: 's', key: 'k' }, configMapKeyRef: { name: 'c', key: 'k' } },
          },
        ],
      },
    ],
    ['a valueFrom without a source', { env: [{ name: 'A', valueFrom: {} }] }],
    ['a reserved env name', { env: [{ name: 'CRONDECK_COMMAND', value: 'rm -rf /' }] }],
    [
      'a duplicate env name',
      {
        env: [
          { name: 'A', value: '1' },
          { name: 'A', value: '2' },
        ],
      },
    ],
    ['a quantity that is not one', { resources: { limits: { cpu: 'lots' } } }],
    ['a webhook that is not http', { onFailure: 'ftp://example.com/x' }],
    ['a bad address in a list', { onFailureEmail: 'ops@example.com, not an address' }],
    ['an image with a space', { image: 'alpine 3' }],
    // The CronJob controller would never start a run (it looks back no further than the deadline).
    ['a starting deadline of 0', { startingDeadlineSeconds: 0 }],
    ['a starting deadline under 10 s', { startingDeadlineSeconds: 9 }],
    [
      'a report-token Secret in env',
      {
        env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'crondeck-report-tokens-0', key: 'job-1' } } }],
      },
    ],
  ];

  it.each(refused)('refuses %s', (_what, fields) => {
    expect(scheduledJobSpecSchema.safeParse({ ...minimal, ...fields }).success).toBe(false);
  });

  // The CRD catches what a schema can express; refinements (ranges of cron fields, time zone
  // names, exactly-one rules in CEL) stay with zod and the API server's CEL.
  const refusedByTheCrdToo = [
    'six fields',
    'a TZ= prefix',
    'a timeout over a day',
    'too many retries',
    'an unknown concurrency policy',
    'a quantity that is not one',
    'a webhook that is not http',
    'an image with a space',
    'a starting deadline of 0',
    'a starting deadline under 10 s',
  ];

  it.each(refused.filter(([what]) => refusedByTheCrdToo.includes(what)))(
    'the CRD refuses %s too',
    (_what, fields) => {
      const resource = {
        apiVersion: 'crondeck.dev/v1alpha1',
        kind: 'ScheduledJob',
        metadata: { name: 'x' },
        spec: { ...minimal, ...fields },
      };
      expect(validateAgainstCrd(resource, scheduledJobCrd()).valid).toBe(false);
    },
  );

  it('turns the shortcuts into alert destinations', () => {
    const spec = scheduledJobSpecSchema.parse({
      ...minimal,
      onFailure: 'https://hooks.example.com/a',
      onCompleteEmail: 'ops@example.com, dev@example.com',
    });
    expect(alertConfigOfShortcuts(spec)).toEqual({
      webhooks: [{ url: 'https://hooks.example.com/a', events: ['failed', 'timeout'] }],
      emails: [{ to: ['ops@example.com', 'dev@example.com'], events: ['success', 'failed', 'timeout'] }],
    });
    expect(alertConfigOfShortcuts(scheduledJobSpecSchema.parse(minimal))).toBeNull();
  });
});

describe('the AlertConfig spec schema', () => {
  const resource = (spec: object) => ({
    apiVersion: 'crondeck.dev/v1alpha1',
    kind: 'AlertConfig',
    metadata: { name: 'alerts' },
    spec,
  });
  const valid = {
    jobRef: { name: 'backup' },
    webhooks: [
      { url: 'https://hooks.example.com/x', events: ['failed'] },
      { urlFrom: { secretKeyRef: { name: 'chat', key: 'url' } }, events: ['timeout', 'failed'] },
    ],
    emails: [{ to: ['ops@example.com'], events: ['success'] }],
  };

  it('accepts url or urlFrom, in zod and in the CRD', () => {
    expect(alertConfigSpecSchema.safeParse(valid).success).toBe(true);
    expect(validateAgainstCrd(resource(valid), alertConfigCrd())).toEqual({ valid: true, errors: [] });
  });

  it('refuses both or neither of url and urlFrom, and unknown events', () => {
    const both = { ...valid, webhooks: [{ ...valid.webhooks[0], urlFrom: valid.webhooks[1]!.urlFrom }] };
    const neither = { ...valid, webhooks: [{ events: ['failed'] }] };
    const badEvent = { ...valid, emails: [{ to: ['ops@example.com'], events: ['skipped'] }] };
    for (const spec of [both, neither, badEvent])
      expect(alertConfigSpecSchema.safeParse(spec).success).toBe(false);
    expect(validateAgainstCrd(resource(badEvent), alertConfigCrd()).valid).toBe(false);
    expect(alertConfigSpecSchema.safeParse({ webhooks: [] }).success).toBe(false);
    const badRef = { ...valid, jobRef: { name: 'Nightly_Backup' } };
    expect(alertConfigSpecSchema.safeParse(badRef).success).toBe(false);
    expect(validateAgainstCrd(resource(badRef), alertConfigCrd()).errors).toEqual([
      '/spec/jobRef/name: must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"',
    ]);
  });

  it('resolves urlFrom through the Secret reader into the domain configuration', () => {
    const spec = alertConfigSpecSchema.parse(valid);
    const config = alertConfigOfResource(spec, ({ name, key }) =>
      name === 'chat' && key === 'url' ? 'https://chat.example.com/hook\n' : undefined,
    );
    expect(config.webhooks).toEqual([
      { url: 'https://hooks.example.com/x', events: ['failed'] },
      { url: 'https://chat.example.com/hook', events: ['failed', 'timeout'] },
    ]);
    expect(() => alertConfigOfResource(spec, () => undefined)).toThrow(
      'webhooks.1.urlFrom: Secret chat has no key url',
    );
    expect(() => alertConfigOfResource(spec, () => 'not a url')).toThrow(/^webhooks\.1\.url: /);
  });

  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  const channels = {
    jobRef: { name: 'backup' },
    webhooks: [
      {
        url: 'https://ci.example.com/hook',
        secretRef: { name: 'hooks', key: 'signing' },
        events: ['failed'],
      },
      {
        url: 'https://pd.internal/v2/enqueue?routing_key=R0123456789abcdefABCDEF012345678',
        format: 'pagerduty',
        events: ['failed'],
      },
    ],
  };

  it('takes a format and a secretRef, in zod and in the CRD, and reads the secret from its Secret', () => {
    expect(validateAgainstCrd(resource(channels), alertConfigCrd())).toEqual({ valid: true, errors: [] });
    const config = alertConfigOfResource(alertConfigSpecSchema.parse(channels), ({ name, key }) =>
      name === 'hooks' && key === 'signing' ? `${secret}\n` : undefined,
    );
    expect(config.webhooks).toEqual([
      { url: 'https://ci.example.com/hook', events: ['failed'], secret },
      { url: channels.webhooks[1]!.url, events: ['failed'], format: 'pagerduty' },
    ]);
    const badFormat = { ...channels, webhooks: [{ ...channels.webhooks[1], format: 'msteams' }] };
    expect(alertConfigSpecSchema.safeParse(badFormat).success).toBe(false);
    expect(validateAgainstCrd(resource(badFormat), alertConfigCrd()).valid).toBe(false);
  });

  it('names the secretRef that cannot be used, without quoting what it holds', () => {
    const spec = alertConfigSpecSchema.parse(channels);
    expect(() => alertConfigOfResource(spec, () => undefined)).toThrow(
      'webhooks.0.secretRef: Secret hooks has no key signing',
    );
    let message = '';
    try {
      alertConfigOfResource(spec, () => 'whsec_dG9vLXNob3J0');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'webhooks.0.secretRef: must be whsec_ followed by the base64 of a 24 to 64 byte key',
    );
    const onChat = {
      ...channels,
      webhooks: [{ ...channels.webhooks[0], url: 'https://hooks.slack.com/services/T/B/X' }],
    };
    expect(() => alertConfigOfResource(alertConfigSpecSchema.parse(onChat), () => secret)).toThrow(
      'webhooks.0.secret: only generic JSON webhooks are signed; this one gets the slack format',
    );
  });
});
