import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { KUBE_API_TRANSCRIPTS_DIR } from '../support/kubeApiFixtures';
import { validateAgainstCrd, validateKubernetesObject } from '../support/openapi/kubernetesSchemas';
import type { Loose } from '../support/openapi/loose';

type Exchange = { request: { body?: unknown }; response: { status: number; body: unknown } };

function exchanges(file: string): Exchange[] {
  const path = resolve(KUBE_API_TRANSCRIPTS_DIR, file);
  return (JSON.parse(readFileSync(path, 'utf8')) as { exchanges: Exchange[] }).exchanges;
}

const clone = <T>(value: T): T => structuredClone(value);

// The CronJob "hello" that the real server accepted (08-cronjob, exchange 15).
const acceptedCronJob = exchanges('08-cronjob.json')[14]!.request.body as Record<string, Loose>;
// The ScheduledJob CRD that the real server accepted (01-crd-lifecycle, exchange 4).
const acceptedCrd = exchanges('01-crd-lifecycle.json')[3]!.request.body as Loose;

describe('validateKubernetesObject', () => {
  it('accepts objects the real API server accepted and answered', () => {
    expect(validateKubernetesObject(acceptedCronJob)).toEqual({ valid: true, errors: [] });
    expect(validateKubernetesObject(acceptedCrd)).toEqual({ valid: true, errors: [] });
  });

  it('rejects an unknown field, naming it', () => {
    const cronJob = clone(acceptedCronJob);
    cronJob.spec.jobTemplate.spec.template.spec.containers[0].imagee = 'typo';
    const result = validateKubernetesObject(cronJob);
    expect(result.valid).toBe(false);
    expect(result.errors).toContain(
      '/spec/jobTemplate/spec/template/spec/containers/0: unknown field "imagee"',
    );
  });

  it('rejects an unknown field at the top of the spec and in metadata', () => {
    const cronJob = clone(acceptedCronJob);
    cronJob.spec.schedules = '* * * * *';
    cronJob.metadata.labelz = {};
    expect(validateKubernetesObject(cronJob).errors).toEqual([
      '/metadata: unknown field "labelz"',
      '/spec: unknown field "schedules"',
    ]);
  });

  it('checks the kinds the recorded documents lack (from kubernetes-models) on the real core schemas', () => {
    const deployment: Loose = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'api' } },
        template: {
          metadata: { labels: { app: 'api' } },
          spec: acceptedCronJob.spec.jobTemplate.spec.template.spec,
        },
      },
    };
    expect(validateKubernetesObject(deployment)).toEqual({ valid: true, errors: [] });
    const typo = clone(deployment);
    typo.spec.replica = 2;
    typo.spec.template.spec.containers[0].imagee = 'typo';
    expect(validateKubernetesObject(typo).errors).toEqual([
      '/spec: unknown field "replica"',
      '/spec/template/spec/containers/0: unknown field "imagee"',
    ]);
    const pdb: Loose = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'api' } };
    expect(validateKubernetesObject({ ...pdb, spec: { maxUnavailable: 1 } }).valid).toBe(true);
    expect(validateKubernetesObject({ ...pdb, spec: { maxUnavailable: true } }).valid).toBe(false);
    expect(validateKubernetesObject({ apiVersion: 'apps/v1', kind: 'Nope' }).errors).toEqual([
      '(root): no schema for apps/v1 Nope',
    ]);
  });

  it('rejects a wrong type', () => {
    const cronJob = clone(acceptedCronJob);
    cronJob.spec.jobTemplate.spec.backoffLimit = '0';
    cronJob.spec.suspend = 'false';
    const result = validateKubernetesObject(cronJob);
    expect(result.errors.sort()).toEqual([
      '/spec/jobTemplate/spec/backoffLimit: must be integer',
      '/spec/suspend: must be boolean',
    ]);
  });

  it('takes an int-or-string as an integer or a string and nothing else', () => {
    const withPort = (port: unknown) => {
      const cronJob = clone(acceptedCronJob);
      cronJob.spec.jobTemplate.spec.template.spec.containers[0].livenessProbe = { httpGet: { port } };
      return validateKubernetesObject(cronJob).valid;
    };
    expect(withPort(8080)).toBe(true);
    expect(withPort('http')).toBe(true);
    expect(withPort(true)).toBe(false);
    expect(withPort({ port: 1 })).toBe(false);
  });

  it('takes quantities as strings or numbers', () => {
    const withCpu = (cpu: unknown) => {
      const cronJob = clone(acceptedCronJob);
      cronJob.spec.jobTemplate.spec.template.spec.containers[0].resources = { limits: { cpu } };
      return validateKubernetesObject(cronJob).valid;
    };
    expect(withCpu('500m')).toBe(true);
    expect(withCpu(1)).toBe(true);
    expect(withCpu([1])).toBe(false);
  });

  it('chooses the schema from apiVersion and kind', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'Opaque',
      data: { a: 'YQ==' },
    };
    expect(validateKubernetesObject(secret).valid).toBe(true);
    expect(validateKubernetesObject({ ...secret, kind: 'CronJob' }).valid).toBe(false);
    expect(validateKubernetesObject({ ...secret, apiVersion: 'v1', kind: 'Nope' }).errors[0]).toMatch(
      /no schema/,
    );
  });
});

describe('validateAgainstCrd', () => {
  const resource = {
    apiVersion: 'example.crondeck.dev/v1alpha1',
    kind: 'ScheduledJob',
    metadata: { name: 'hello', namespace: 'default' },
    spec: { schedule: '*/5 * * * *', command: 'echo hi', retry: { maxAttempts: 2 } },
  };

  it('accepts a resource that fits the CRD', () => {
    expect(validateAgainstCrd(resource, acceptedCrd)).toEqual({ valid: true, errors: [] });
  });

  it('rejects unknown fields, wrong types, bounds, patterns and enums', () => {
    const bad = clone(resource) as Loose;
    bad.spec.retry.maxAttempts = 11;
    bad.spec.comand = 'typo';
    bad.spec.schedule = 'every minute';
    bad.spec.suspend = 'yes';
    bad.spec.concurrencyPolicy = 'Sometimes';
    bad.metadata.nam = 'x';
    expect(validateAgainstCrd(bad, acceptedCrd).errors.sort()).toEqual(
      [
        '/metadata: unknown field "nam"',
        '/spec: unknown field "comand"',
        '/spec/concurrencyPolicy: must be equal to one of the allowed values',
        '/spec/retry/maxAttempts: must be <= 10',
        '/spec/schedule: must match pattern "^(\\S+\\s+){4}\\S+$"',
        '/spec/suspend: must be boolean',
      ].sort(),
    );
  });

  it('rejects another kind or version', () => {
    expect(validateAgainstCrd({ ...resource, kind: 'Other' }, acceptedCrd).valid).toBe(false);
    expect(
      validateAgainstCrd({ ...resource, apiVersion: 'example.crondeck.dev/v1' }, acceptedCrd).valid,
    ).toBe(false);
  });
});
