import { fieldErr, type FieldError } from '../errors';
import { openApiPruner } from '../openapi';
import type { ResourceType } from '../resources';
import type { Obj } from '../types';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';
import { isKnownTimeZone, parseSchedule } from './cronSchedule';
import { defaultTemplate, validateJobPodTemplate } from './podSpec';

function nonNegative(errs: FieldError[], path: string, v: unknown): void {
  if (typeof v === 'number' && v < 0)
    errs.push(fieldErr.invalid(path, v, 'must be greater than or equal to 0'));
}

/** ValidateCronJob: the checks and texts of 08 #2–#12, in the server's order. */
function validateCronJob(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name: string = obj.metadata.name;
  errs.push(...validateSubdomainName('metadata.name', name));
  // Job names get an 11-character suffix, so CronJob names stop at 52 (08 #11).
  if (name.length > 52)
    errs.push(fieldErr.invalid('metadata.name', name, 'must be no more than 52 characters'));
  const spec = (obj.spec ?? {}) as Obj;
  if (!spec.schedule) {
    errs.push(fieldErr.required('spec.schedule'));
  } else if (/^(CRON_)?TZ=/.test(spec.schedule) || /\b(CRON_)?TZ=/.test(spec.schedule)) {
    errs.push(
      fieldErr.invalid(
        'spec.schedule',
        spec.schedule,
        'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
      ),
    );
  } else {
    try {
      parseSchedule(spec.schedule);
    } catch (e) {
      errs.push(fieldErr.invalid('spec.schedule', spec.schedule, (e as Error).message));
    }
  }
  if (spec.timeZone !== undefined && spec.timeZone !== null) {
    if (spec.timeZone === 'Local' || spec.timeZone === '') {
      errs.push(
        fieldErr.invalid(
          'spec.timeZone',
          spec.timeZone,
          'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
        ),
      );
    } else if (!isKnownTimeZone(spec.timeZone)) {
      errs.push(fieldErr.invalid('spec.timeZone', spec.timeZone, `unknown time zone ${spec.timeZone}`));
    }
  }
  nonNegative(errs, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds);
  if (!['Allow', 'Forbid', 'Replace'].includes(spec.concurrencyPolicy)) {
    errs.push(
      fieldErr.notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, ['Allow', 'Forbid', 'Replace']),
    );
  }
  nonNegative(errs, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit);
  nonNegative(errs, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit);
  errs.push(...validateJobPodTemplate(spec.jobTemplate?.spec?.template, 'spec.jobTemplate.spec.template'));
  return errs;
}

export const cronjobs: ResourceType = builtin({
  group: 'batch',
  version: 'v1',
  resource: 'cronjobs',
  kind: 'CronJob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  subresources: ['status'],
  generation: true,
  prune: openApiPruner('apis__batch__v1.json', 'io.k8s.api.batch.v1.CronJob'),
  defaults(obj, ctx) {
    const spec = (obj.spec = obj.spec ?? {});
    spec.concurrencyPolicy = spec.concurrencyPolicy ?? 'Allow';
    spec.suspend = spec.suspend ?? false;
    spec.successfulJobsHistoryLimit = spec.successfulJobsHistoryLimit ?? 3;
    spec.failedJobsHistoryLimit = spec.failedJobsHistoryLimit ?? 1;
    if (spec.jobTemplate) {
      spec.jobTemplate.metadata = { creationTimestamp: null, ...(spec.jobTemplate.metadata ?? {}) };
      defaultTemplate(spec.jobTemplate.spec?.template);
    }
    if (ctx.operation === 'create') obj.status = {};
  },
  validate: validateCronJob,
});

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

/** Job defaults and the controller-uid selector/labels the server adds on create (09 #2). */
function defaultJob(obj: Obj, operation: string): void {
  const spec = (obj.spec = obj.spec ?? {});
  spec.parallelism = spec.parallelism ?? 1;
  spec.completions = spec.completions ?? 1;
  spec.backoffLimit = spec.backoffLimit ?? 6;
  spec.completionMode = spec.completionMode ?? 'NonIndexed';
  spec.suspend = spec.suspend ?? false;
  spec.podReplacementPolicy = spec.podReplacementPolicy ?? 'TerminatingOrFailed';
  if (operation === 'create' && !spec.manualSelector) {
    const uid = obj.metadata.uid;
    const labels = {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': obj.metadata.name,
      'controller-uid': uid,
      'job-name': obj.metadata.name,
    };
    spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
    spec.manualSelector = false;
    spec.template = spec.template ?? {};
    spec.template.metadata = { ...(spec.template.metadata ?? {}) };
    spec.template.metadata.labels = { ...(spec.template.metadata.labels ?? {}), ...labels };
  }
  defaultTemplate(spec.template);
  // SetDefaults_Job also runs when the stored Job is decoded, so a Job without labels shows its
  // template's labels, the generated selector labels included (09 #13).
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(obj.metadata.labels ?? {}).length === 0) {
    obj.metadata.labels = { ...templateLabels };
  }
  if (operation === 'create') obj.status = {};
}

export const jobs: ResourceType = builtin({
  group: 'batch',
  version: 'v1',
  resource: 'jobs',
  kind: 'Job',
  namespaced: true,
  categories: ['all'],
  subresources: ['status'],
  generation: true,
  // batch/v1 Jobs orphan their pods when DELETE names no propagationPolicy.
  defaultPropagation: 'Orphan',
  prune: openApiPruner('apis__batch__v1.json', 'io.k8s.api.batch.v1.Job'),
  defaults: (obj, ctx) => defaultJob(obj, ctx.operation),
  validate(obj) {
    return [
      ...validateSubdomainName('metadata.name', obj.metadata.name),
      ...validateJobPodTemplate(obj.spec?.template, 'spec.template'),
    ];
  },
});
