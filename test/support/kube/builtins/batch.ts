import { fieldErr, type FieldError } from '../errors';
import type { ResourceType, WriteContext } from '../resources';
import type { Obj } from '../types';
import { builtin } from './common';
import { isKnownTimeZone, parseSchedule } from './cronSchedule';
import { decoding } from './decoding';
import { validateJob, validateJobTemplateSpec, validateJobUpdate } from './jobValidation';
import { validateObjectMeta } from './metaValidation';
import { isDns1123Subdomain } from './nameRules';
import { defaultTemplate } from './podSpec';
import { templateWarnings } from './podWarnings';

function nonNegative(errs: FieldError[], path: string, v: unknown): void {
  if (typeof v === 'number' && v < 0)
    errs.push(fieldErr.invalid(path, v, 'must be greater than or equal to 0'));
}

function validateSchedule(schedule: string, oldSchedule: string | undefined): FieldError[] {
  const errs: FieldError[] = [];
  try {
    // robfig/cron accepts a TZ= / CRON_TZ= prefix; the API refuses it below.
    parseSchedule(schedule.replace(/^(CRON_)?TZ=\S+\s+/, ''));
  } catch (e) {
    errs.push(fieldErr.invalid('spec.schedule', schedule, (e as Error).message));
  }
  if (schedule.includes('TZ') && !oldSchedule?.includes('TZ')) {
    errs.push(
      fieldErr.invalid(
        'spec.schedule',
        schedule,
        'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
      ),
    );
  }
  return errs;
}

function validateTimeZone(tz: unknown): FieldError[] {
  if (tz === undefined || tz === null) return [];
  const zone = String(tz);
  if (zone === '')
    return [fieldErr.invalid('spec.timeZone', zone, 'timeZone must be nil or non-empty string')];
  for (const part of zone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !/^[A-Za-z._+\-0-9]+$/.test(part)) {
      return [fieldErr.invalid('spec.timeZone', zone, `unknown time zone ${zone}`)];
    }
  }
  const errs: FieldError[] = [];
  if (zone.toLowerCase() === 'local') {
    errs.push(
      fieldErr.invalid(
        'spec.timeZone',
        zone,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    );
  }
  if (zone !== 'Local' && !isKnownTimeZone(zone))
    errs.push(fieldErr.invalid('spec.timeZone', zone, `unknown time zone ${zone}`));
  return errs;
}

/** ValidateCronJobCreate / Update: metadata, the spec in the server's order, then the 52-character name rule. */
function validateCronJob(obj: Obj, ctx: WriteContext): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, isDns1123Subdomain, true);
  const spec = (obj.spec ?? {}) as Obj;
  const old = ctx.old?.spec as Obj | undefined;
  if (!spec.schedule) errs.push(fieldErr.required('spec.schedule'));
  else errs.push(...validateSchedule(spec.schedule, old?.schedule));
  nonNegative(errs, 'spec.startingDeadlineSeconds', spec.startingDeadlineSeconds);
  if (!old || old.timeZone !== spec.timeZone) errs.push(...validateTimeZone(spec.timeZone));
  if (!spec.concurrencyPolicy) errs.push(fieldErr.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(spec.concurrencyPolicy)) {
    errs.push(
      fieldErr.notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, ['Allow', 'Forbid', 'Replace']),
    );
  }
  errs.push(...validateJobTemplateSpec(spec.jobTemplate));
  nonNegative(errs, 'spec.successfulJobsHistoryLimit', spec.successfulJobsHistoryLimit);
  nonNegative(errs, 'spec.failedJobsHistoryLimit', spec.failedJobsHistoryLimit);
  // Job names get an 11-character suffix, so CronJob names stop at 52 (08 #11); checked on create only.
  const name: string = obj.metadata.name;
  if (ctx.operation === 'create' && name.length > 52) {
    errs.push(fieldErr.invalid('metadata.name', name, 'must be no more than 52 characters'));
  }
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
  ...decoding('batch/v1', 'CronJob'),
  defaults(obj, ctx) {
    const spec = (obj.spec ??= {});
    spec.concurrencyPolicy ||= 'Allow';
    spec.suspend ??= false;
    spec.successfulJobsHistoryLimit ??= 3;
    spec.failedJobsHistoryLimit ??= 1;
    const template = (spec.jobTemplate ??= {});
    template.metadata = { creationTimestamp: null, ...(template.metadata ?? {}) };
    template.spec ??= {};
    template.spec.template ??= {};
    defaultTemplate(template.spec.template);
    if (ctx.operation === 'create') obj.status = {};
  },
  validate: validateCronJob,
  warnings: templateWarnings((o) => o?.spec?.jobTemplate?.spec?.template, 'spec.jobTemplate.spec.template'),
});

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';

/** SetDefaults_Job. */
function defaultJobSpec(spec: Obj): void {
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  for (const rule of (spec.podFailurePolicy?.rules ?? []) as Obj[]) {
    for (const pattern of (rule.onPodConditions ?? []) as Obj[]) pattern.status ||= 'True';
  }
  spec.podReplacementPolicy ??= spec.podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
}

/** The strategy's generateSelector: labels naming the Job and its uid, and a selector on the uid. */
function generateSelector(obj: Obj): void {
  const spec = obj.spec as Obj;
  spec.template ??= {};
  spec.template.metadata = { ...(spec.template.metadata ?? {}) };
  const labels = (spec.template.metadata.labels = { ...(spec.template.metadata.labels ?? {}) });
  const { name, uid } = obj.metadata;
  for (const key of ['job-name', 'batch.kubernetes.io/job-name']) labels[key] ??= name;
  for (const key of ['controller-uid', 'batch.kubernetes.io/controller-uid']) labels[key] ??= uid;
  spec.selector ??= {};
  spec.selector.matchLabels = { ...(spec.selector.matchLabels ?? {}) };
  spec.selector.matchLabels['batch.kubernetes.io/controller-uid'] ??= uid;
}

function defaultJob(obj: Obj, operation: string): void {
  const spec = (obj.spec ??= {});
  defaultJobSpec(spec);
  if (operation === 'create' && !spec.manualSelector) generateSelector(obj);
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
  ...decoding('batch/v1', 'Job'),
  defaults: (obj, ctx) => defaultJob(obj, ctx.operation),
  validate: (obj, ctx) => [
    ...validateObjectMeta(obj.metadata, isDns1123Subdomain, true),
    ...validateJob(obj),
    ...(ctx.operation === 'update' && ctx.old ? validateJobUpdate(obj, ctx.old) : []),
  ],
  warnings: templateWarnings((o) => o?.spec?.template, 'spec.template'),
});
