import { fieldErr, notEmulated, type FieldError } from '../errors';
import { deepEqual, isPlainObject, type Obj } from '../types';
import { goLabelSelector, goStringMap } from './goRender';
import { selectorConverts, selectorMatches, validateLabelSelector } from './metaValidation';
import { isDns1123Label, isQualifiedName } from './nameRules';
import { validatePodTemplateSpec } from './podValidation';

/** batch/v1 validation of a JobSpec (a Job's, or a CronJob's template's): validateJobSpec and friends. */

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function nonNegative(path: string, v: unknown): FieldError[] {
  return typeof v === 'number' && v < 0
    ? [fieldErr.invalid(path, v, 'must be greater than or equal to 0')]
    : [];
}

/** An error whose value upstream leaves out (field.OmitValueType). */
function invalidNoValue(field: string, msg: string): FieldError {
  return { type: 'Invalid', field, detail: `Invalid value: ${msg}` };
}

function validateOnExitCodes(req: Obj, path: string, containers: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  if (!['In', 'NotIn'].includes(req.operator))
    errs.push(fieldErr.notSupported(`${path}.operator`, req.operator ?? '', ['In', 'NotIn']));
  if (req.containerName !== undefined && !containers.has(req.containerName)) {
    errs.push(
      fieldErr.invalid(
        `${path}.containerName`,
        req.containerName,
        'must be one of the container or initContainer names in the pod template',
      ),
    );
  }
  const values = (req.values ?? []) as number[];
  if (values.length === 0)
    errs.push(fieldErr.invalidRaw(`${path}.values`, '[]int32(nil)', 'at least one value is required'));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((v, j) => {
    const at = `${path}.values[${j}]`;
    if (req.operator === 'In' && v === 0)
      errs.push(fieldErr.invalid(at, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(fieldErr.duplicate(at, String(v)));
    else seen.add(v);
    if (j > 0 && values[j - 1]! > v) ordered = false;
  });
  if (!ordered)
    errs.push(fieldErr.invalidRaw(`${path}.values`, `[]int32{${values.join(', ')}}`, 'must be ordered'));
  return errs;
}

function validatePodFailurePolicy(spec: Obj, prefix: string): FieldError[] {
  const path = `${prefix}.podFailurePolicy`;
  const errs: FieldError[] = [];
  const rules = list(spec.podFailurePolicy.rules);
  if (rules.length > 20)
    errs.push({
      type: 'TooMany',
      field: `${path}.rules`,
      detail: `Too many: ${rules.length}: must have at most 20 items`,
    });
  const template = spec.template?.spec ?? {};
  const containers = new Set(
    [...list(template.containers), ...list(template.initContainers)].map((c) => c.name as string),
  );
  rules.forEach((rule, i) => {
    const at = `${path}.rules[${i}]`;
    if (rule.action === 'FailIndex' && spec.backoffLimitPerIndex === undefined) {
      errs.push(fieldErr.invalid(`${at}.action`, rule.action, 'requires the backoffLimitPerIndex to be set'));
    }
    const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
    if (!actions.includes(rule.action))
      errs.push(fieldErr.notSupported(`${at}.action`, rule.action ?? '', actions));
    if (isPlainObject(rule.onExitCodes))
      errs.push(...validateOnExitCodes(rule.onExitCodes, `${at}.onExitCodes`, containers));
    const conditions = list(rule.onPodConditions);
    conditions.forEach((c, j) => {
      const cAt = `${at}.onPodConditions[${j}]`;
      errs.push(
        ...isQualifiedName(String(c.type ?? '')).map((m) => fieldErr.invalid(`${cAt}.type`, c.type ?? '', m)),
      );
      const statuses = ['False', 'True', 'Unknown'];
      if (!c.status)
        errs.push(fieldErr.required(`${cAt}.status`, 'valid values: ["False" "True" "Unknown"]'));
      else if (!statuses.includes(c.status))
        errs.push(fieldErr.notSupported(`${cAt}.status`, c.status, statuses));
    });
    if (isPlainObject(rule.onExitCodes) && conditions.length > 0) {
      errs.push(invalidNoValue(at, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    }
    if (!isPlainObject(rule.onExitCodes) && conditions.length === 0) {
      errs.push(invalidNoValue(at, 'specifying one of OnExitCodes and OnPodConditions is required'));
    }
  });
  return errs;
}

/** validateIndexesFormat: the number of indexes, or the parse error. */
function countIndexes(text: string, completions: number): number | string {
  if (text === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of text.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) {
      return `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`;
    }
    const bounds: number[] = [];
    for (const l of limits) {
      if (!/^[+-]?\d+$/.test(l)) return `cannot convert string to integer for index: ${JSON.stringify(l)}`;
      const x = Number(l);
      if (x >= completions) return `too large index: ${JSON.stringify(l)}`;
      if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
      last = x;
      bounds.push(x);
    }
    total += bounds.length === 2 ? bounds[1]! - bounds[0]! + 1 : 1;
  }
  return total;
}

function validateSuccessPolicy(spec: Obj, prefix: string): FieldError[] {
  const path = `${prefix}.successPolicy`;
  const errs: FieldError[] = [];
  const rules = list(spec.successPolicy.rules);
  if (rules.length === 0)
    errs.push(
      fieldErr.required(
        `${path}.rules`,
        'at least one rules must be specified when the successPolicy is specified',
      ),
    );
  const completions = Number(spec.completions ?? 0);
  rules.forEach((rule, i) => {
    const at = `${path}.rules[${i}]`;
    if (rule.succeededCount === undefined && rule.succeededIndexes === undefined) {
      errs.push(
        fieldErr.required(at, 'at least one of succeededCount or succeededIndexes must be specified'),
      );
    }
    let total = 0;
    if (rule.succeededIndexes !== undefined) {
      const counted = countIndexes(String(rule.succeededIndexes), completions);
      if (typeof counted === 'string') {
        errs.push(
          fieldErr.invalid(
            `${at}.succeededIndexes`,
            rule.succeededIndexes,
            `error parsing succeededIndexes: ${counted}`,
          ),
        );
      } else total = counted;
    }
    if (rule.succeededCount !== undefined) {
      const cAt = `${at}.succeededCount`;
      errs.push(...nonNegative(cAt, rule.succeededCount));
      if (rule.succeededCount > completions) {
        errs.push(
          fieldErr.invalid(
            cAt,
            rule.succeededCount,
            `must be less than or equal to ${completions} (the number of specified completions)`,
          ),
        );
      }
      if (rule.succeededIndexes !== undefined && rule.succeededCount > total) {
        errs.push(
          fieldErr.invalid(
            cAt,
            rule.succeededCount,
            `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`,
          ),
        );
      }
    }
  });
  return errs;
}

function validatePodReplacementPolicy(spec: Obj, path: string): FieldError[] {
  const p = spec.podReplacementPolicy;
  if (p === undefined) return [];
  if (spec.podFailurePolicy !== undefined) {
    return p === 'Failed' ? [] : [fieldErr.notSupported(path, p, ['Failed'])];
  }
  return ['Failed', 'TerminatingOrFailed'].includes(p)
    ? []
    : [fieldErr.notSupported(path, p, ['Failed', 'TerminatingOrFailed'])];
}

/** validateJobSpec: counts, indexed mode, policies, the pod template and its restartPolicy. */
function validateJobSpec(spec: Obj, prefix: string): FieldError[] {
  const at = (f: string) => `${prefix}.${f}`;
  const errs: FieldError[] = [];
  for (const f of [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
    'backoffLimitPerIndex',
  ]) {
    errs.push(...nonNegative(at(f), spec[f]));
  }
  if (spec.maxFailedIndexes !== undefined) {
    errs.push(...nonNegative(at('maxFailedIndexes'), spec.maxFailedIndexes));
    if (spec.backoffLimitPerIndex === undefined) {
      errs.push(fieldErr.required(at('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
    }
  }
  const mode = spec.completionMode;
  if (mode !== undefined) {
    if (!['NonIndexed', 'Indexed'].includes(mode))
      errs.push(fieldErr.notSupported(at('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (spec.completions === undefined)
        errs.push(fieldErr.required(at('completions'), 'when completion mode is Indexed'));
      if (spec.parallelism > 100000) {
        errs.push(
          fieldErr.invalid(
            at('parallelism'),
            spec.parallelism,
            'must be less than or equal to 100000 when completion mode is Indexed',
          ),
        );
      }
      if (spec.completions !== undefined && spec.maxFailedIndexes > spec.completions) {
        errs.push(
          fieldErr.invalid(
            at('maxFailedIndexes'),
            spec.maxFailedIndexes,
            'must be less than or equal to completions',
          ),
        );
      }
    }
  }
  if (mode === undefined || mode === 'NonIndexed') {
    if (spec.backoffLimitPerIndex !== undefined) {
      errs.push(
        fieldErr.invalid(
          at('backoffLimitPerIndex'),
          spec.backoffLimitPerIndex,
          'requires indexed completion mode',
        ),
      );
    }
    if (spec.maxFailedIndexes !== undefined) {
      errs.push(
        fieldErr.invalid(at('maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'),
      );
    }
  }
  if (isPlainObject(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, prefix));
  if (isPlainObject(spec.successPolicy)) {
    // The server prints the batch.SuccessPolicy struct here.
    if (mode !== 'Indexed') throw notEmulated(`${at('successPolicy')} without indexed completion mode`);
    errs.push(...validateSuccessPolicy(spec, prefix));
  }
  errs.push(...validatePodReplacementPolicy(spec, at('podReplacementPolicy')));
  errs.push(...validatePodTemplateSpec(spec.template, at('template')));
  const rp = spec.template?.spec?.restartPolicy ?? '';
  const rpPath = at('template.spec.restartPolicy');
  if (rp === 'Always' || rp === '')
    errs.push(fieldErr.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== 'OnFailure' && rp !== 'Never')
    errs.push(fieldErr.notSupported(rpPath, rp, ['OnFailure', 'Never']));
  else if (spec.podFailurePolicy !== undefined && rp !== 'Never') {
    errs.push(fieldErr.invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const TRACKING = 'batch.kubernetes.io/job-tracking';

/** validateGeneratedSelector: a Job without manualSelector must have the selector the server made. */
function validateGeneratedSelector(job: Obj): FieldError[] {
  const spec = job.spec ?? {};
  if (spec.manualSelector === true || !spec.template?.metadata?.labels || !isPlainObject(spec.selector))
    return [];
  const errs: FieldError[] = [];
  const labels = spec.template.metadata.labels as Record<string, string>;
  const uid = job.metadata.uid as string;
  for (const [key, want] of [
    ['controller-uid', uid],
    ['job-name', job.metadata.name],
    [CONTROLLER_UID, uid],
    ['batch.kubernetes.io/job-name', job.metadata.name],
  ] as [string, string][]) {
    if (!(key in labels))
      errs.push(fieldErr.required(`spec.template.metadata.labels[${key}]`, `must be '${want}'`));
    else if (labels[key] !== want)
      errs.push(
        fieldErr.invalidRaw(
          `spec.template.metadata.labels[${key}]`,
          goStringMap(labels),
          `must be '${want}'`,
        ),
      );
  }
  // The selector must select the label the server would have generated.
  const sel = spec.selector;
  if (selectorConverts(sel) && !selectorMatches(sel, { [CONTROLLER_UID]: uid })) {
    errs.push(fieldErr.invalidRaw('spec.selector', goLabelSelector(sel), '`selector` not auto-generated'));
  }
  return errs;
}

/** ValidateJob's part after the metadata: the generated selector, the spec, selection of the template. */
export function validateJob(job: Obj): FieldError[] {
  const spec = job.spec ?? {};
  const errs = [...validateGeneratedSelector(job), ...validateJobSpec(spec, 'spec')];
  if (job.metadata.annotations?.[TRACKING] !== undefined) {
    errs.push(fieldErr.forbidden(`metadata.annotations[${TRACKING}]`, 'cannot add this annotation'));
  }
  if (!isPlainObject(spec.selector)) errs.push(fieldErr.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const labels = spec.template?.metadata?.labels as Record<string, string> | undefined;
  if (
    selectorConverts(spec.selector) &&
    !selectorMatches(spec.selector, labels) &&
    isPlainObject(spec.selector)
  ) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.template.metadata.labels',
        goStringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  }
  if (spec.completionMode === 'Indexed' && spec.completions > 0) {
    const hostname = `${job.metadata.name}-${spec.completions - 1}`;
    if (isDns1123Label(hostname).length) {
      errs.push(
        fieldErr.invalid(
          'metadata.name',
          job.metadata.name,
          `will not able to create pod with invalid DNS label: ${hostname}`,
        ),
      );
    }
  }
  return errs;
}

/** ValidateJobTemplateSpec of a CronJob: the selector is always generated there. */
export function validateJobTemplateSpec(template: Obj | undefined): FieldError[] {
  const spec = (template?.spec ?? {}) as Obj;
  const errs = validateJobSpec(spec, 'spec.jobTemplate.spec');
  if (spec.selector !== undefined) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.jobTemplate.spec.selector',
        goLabelSelector(spec.selector),
        '`selector` will be auto-generated',
      ),
    );
  }
  if (spec.manualSelector === true) {
    errs.push(fieldErr.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  }
  return errs;
}

/**
 * ValidateJobUpdate's fixed fields. The selector and the counts print simply; a changed template
 * prints the whole core.PodTemplateSpec (refused loudly instead).
 */
export function validateJobUpdate(job: Obj, old: Obj): FieldError[] {
  const spec = job.spec ?? {};
  const before = old.spec ?? {};
  if (!deepEqual(spec.template, before.template))
    throw notEmulated('an update of a Job that changes its pod template');
  const errs: FieldError[] = [];
  if (!deepEqual(spec.selector, before.selector)) {
    errs.push(fieldErr.invalidRaw('spec.selector', goLabelSelector(spec.selector), 'field is immutable'));
  }
  for (const f of ['completionMode', 'backoffLimitPerIndex']) {
    if (spec[f] !== before[f]) errs.push(fieldErr.invalid(`spec.${f}`, spec[f] ?? '', 'field is immutable'));
  }
  if (spec.completionMode !== 'Indexed' && spec.completions !== before.completions) {
    errs.push(fieldErr.invalid('spec.completions', spec.completions ?? 0, 'field is immutable'));
  }
  if (!deepEqual(spec.podFailurePolicy, before.podFailurePolicy))
    throw notEmulated('an update of a Job that changes its podFailurePolicy');
  return errs;
}
