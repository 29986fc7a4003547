import fc from 'fast-check';
import {
  type ScheduledJob,
  type ScheduledJobSpecInput,
  scheduledJobSpecSchema,
} from '../../../src/kube/resources/scheduledJob';
import { CRONDECK_API_VERSION } from '../../../src/kube/resources/group';

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

/** ScheduledJob names: DNS-1123 subdomains, short and long (over the CronJob limit of 52). */
const scheduledJobNameArbitrary = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/),
  fc
    .array(fc.tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom('-', '.', '--')), {
      minLength: 6,
      maxLength: 30,
    })
    .map(
      (parts) =>
        parts
          .map(([part, separator]) => part + separator)
          .join('')
          .slice(0, 250) + 'z',
    ),
);

const quantity = (values: (string | number)[]) => fc.constantFrom(...values);

const envVarArbitrary = fc.oneof(
  fc.record({ value: fc.string({ maxLength: 40 }) }),
  fc.record({
    valueFrom: fc.record({
      secretKeyRef: fc.record({
        name: fc.constantFrom('db', 'api.keys'),
        key: fc.constantFrom('password', 'TOKEN'),
      }),
    }),
  }),
  fc.record({
    valueFrom: fc.record({
      configMapKeyRef: fc.record({ name: fc.constant('settings'), key: fc.constant('level') }),
    }),
  }),
);

/** Specs as users write them: every optional field sometimes present. */
const specInputArbitrary: fc.Arbitrary<ScheduledJobSpecInput> = fc.record(
  {
    schedule: fc.constantFrom(
      '*/5 * * * *',
      '0 3 * * 1-5',
      '@daily',
      ' 15  2 * * * ',
      '0 0 1 1 *',
      '@hourly',
    ),
    command: fc.string({ minLength: 1, maxLength: 120 }).filter((command) => !command.includes('\0')),
    timeZone: optional(
      fc.constantFrom('Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+1'),
    ),
    suspend: optional(fc.boolean()),
    timeout: optional(fc.integer({ min: 0, max: 86_400 })),
    retry: optional(
      fc.record(
        { maxAttempts: fc.integer({ min: 0, max: 10 }), baseDelay: fc.integer({ min: 0, max: 3600 }) },
        { requiredKeys: [] },
      ),
    ),
    description: optional(fc.string({ maxLength: 50 })),
    tags: optional(fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 3 })),
    image: optional(
      fc.constantFrom(
        'alpine:3.20',
        'registry.example.com:5000/team/tool:latest',
        `busybox@sha256:${'a'.repeat(64)}`,
      ),
    ),
    imagePullPolicy: optional(fc.constantFrom('Always' as const, 'IfNotPresent' as const, 'Never' as const)),
    concurrencyPolicy: optional(fc.constantFrom('Forbid' as const, 'Allow' as const, 'Replace' as const)),
    startingDeadlineSeconds: optional(fc.integer({ min: 10, max: 3600 })),
    successfulJobsHistoryLimit: optional(fc.integer({ min: 0, max: 100 })),
    failedJobsHistoryLimit: optional(fc.integer({ min: 0, max: 100 })),
    env: optional(
      fc
        .uniqueArray(fc.tuple(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,15}$/), envVarArbitrary), {
          maxLength: 4,
          selector: ([name]) => name,
        })
        .map((vars) =>
          vars
            .filter(([name]) => !name.startsWith('CRONDECK_'))
            .map(([name, source]) => ({ name, ...source })),
        ),
    ),
    resources: optional(
      fc.record(
        {
          requests: fc.record(
            { cpu: quantity(['250m', 1, '0.5', '2']), memory: quantity(['128Mi', '1Gi', 1048576]) },
            { requiredKeys: [] },
          ),
          limits: fc.record(
            { cpu: quantity(['1', 4]), memory: quantity(['2048Mi', '512M']) },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    onFailure: optional(fc.constant('https://hooks.example.com/T000/B000/XXX')),
    onSuccessEmail: optional(fc.constant('ops@example.com, dev@example.com')),
  },
  { requiredKeys: ['schedule', 'command'] },
);

/** A ScheduledJob as the controller reads it: defaults applied (as the API server does). */
export function scheduledJob(name: string, input: ScheduledJobSpecInput, namespace = 'team-a'): ScheduledJob {
  return {
    apiVersion: CRONDECK_API_VERSION,
    kind: 'ScheduledJob',
    metadata: { name, namespace, uid: '0d9d7a4e-1111-4222-8333-444455556666', generation: 1 },
    spec: scheduledJobSpecSchema.parse(input),
  };
}

export const scheduledJobArbitrary = fc
  .tuple(scheduledJobNameArbitrary, specInputArbitrary)
  .map(([name, input]) => ({ input, job: scheduledJob(name, input) }));
