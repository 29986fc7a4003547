import { fieldErr, type FieldError } from '../errors';
import type { ResourceType, WriteContext } from '../resources';
import { deepEqual, isPlainObject, type Obj } from '../types';
import { builtin } from './common';
import { decoding } from './decoding';
import { goIntOrString, goLabelSelector, goPointer, goQuote, goStringMap, goStruct } from './goRender';
import {
  selectorConverts,
  selectorIsEmpty,
  selectorMatches,
  validateLabelSelector,
  validateLabels,
  validateAnnotations,
  validateObjectMeta,
} from './metaValidation';
import { isDns1123Subdomain, isValidPercent } from './nameRules';
import { validatePodTemplateSpec } from './podValidation';
import { templateWarnings } from './podWarnings';
import { defaultClaimSpec, defaultTemplate } from './podSpec';

/** apps/v1 Deployment and StatefulSet: SetDefaults_*, ValidateDeployment/StatefulSet (19 #3–#65). */

function nonNegative(path: string, v: unknown): FieldError[] {
  return typeof v === 'number' && v < 0
    ? [fieldErr.invalid(path, v, 'must be greater than or equal to 0')]
    : [];
}

/** The selector checks both kinds share; `kind` names the empty-selector message. */
function validateSelector(spec: Obj, kind: string): FieldError[] {
  if (!isPlainObject(spec.selector)) return [fieldErr.required('spec.selector')];
  const errs = validateLabelSelector(spec.selector, 'spec.selector');
  if (selectorIsEmpty(spec.selector)) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.selector',
        goLabelSelector(spec.selector),
        `empty selector is invalid for ${kind}`,
      ),
    );
  }
  return errs;
}

/** The template's labels must be selected (a missing selector selects nothing). */
function validateTemplateSelected(spec: Obj): FieldError[] {
  const labels = spec.template?.metadata?.labels as Record<string, string> | undefined;
  if (isPlainObject(spec.selector) && selectorIsEmpty(spec.selector)) return [];
  if (selectorMatches(spec.selector, labels)) return [];
  return [
    fieldErr.invalidRaw(
      'spec.template.metadata.labels',
      goStringMap(labels),
      '`selector` does not match template `labels`',
    ),
  ];
}

function percentValue(v: unknown): number | undefined {
  return typeof v === 'string' && isValidPercent(v).length === 0 ? Number(v.slice(0, -1)) : undefined;
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent (shared with policy/v1). */
export function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string')
    return isValidPercent(v).map((m) => fieldErr.invalidRaw(path, goIntOrString(v), m));
  return nonNegative(path, v);
}

export function notMoreThan100Percent(v: unknown, path: string): FieldError[] {
  const p = percentValue(v);
  return p !== undefined && p > 100
    ? [fieldErr.invalidRaw(path, goIntOrString(v), 'must not be greater than 100%')]
    : [];
}

function validateStrategy(strategy: Obj | undefined): FieldError[] {
  const s = strategy ?? {};
  const path = 'spec.strategy';
  if (s.type === 'Recreate') {
    return s.rollingUpdate !== undefined
      ? [
          fieldErr.forbidden(
            `${path}.rollingUpdate`,
            "may not be specified when strategy `type` is 'Recreate'",
          ),
        ]
      : [];
  }
  if (s.type !== 'RollingUpdate') {
    const rendered = goStruct('apps.DeploymentStrategy', [
      ['Type', goQuote(s.type ?? '')],
      ['RollingUpdate', goPointer('apps.RollingUpdateDeployment', s.rollingUpdate)],
    ]);
    return [
      {
        type: 'NotSupported',
        field: path,
        detail: `Unsupported value: ${rendered}: supported values: "Recreate", "RollingUpdate"`,
      },
    ];
  }
  const ru = s.rollingUpdate ?? {};
  const at = `${path}.rollingUpdate`;
  const errs = [
    ...validateIntOrPercent(ru.maxUnavailable, `${at}.maxUnavailable`),
    ...validateIntOrPercent(ru.maxSurge, `${at}.maxSurge`),
  ];
  const value = (v: unknown) =>
    percentValue(v) ?? (typeof v === 'number' ? v : Number.parseInt(String(v), 10) || 0);
  if (value(ru.maxUnavailable) === 0 && value(ru.maxSurge) === 0) {
    errs.push(
      fieldErr.invalidRaw(
        `${at}.maxUnavailable`,
        goIntOrString(ru.maxUnavailable),
        'may not be 0 when `maxSurge` is 0',
      ),
    );
  }
  return [...errs, ...notMoreThan100Percent(ru.maxUnavailable, `${at}.maxUnavailable`)];
}

function validateDeployment(obj: Obj, ctx: WriteContext): FieldError[] {
  const spec = (obj.spec ?? {}) as Obj;
  const errs = validateObjectMeta(obj.metadata, isDns1123Subdomain, true);
  errs.push(...nonNegative('spec.replicas', spec.replicas));
  errs.push(...validateSelector(spec, 'deployment'));
  if (!selectorConverts(spec.selector)) {
    errs.push(fieldErr.invalidRaw('spec.selector', goLabelSelector(spec.selector), 'invalid label selector'));
  } else {
    errs.push(...validateTemplateSelected(spec));
    errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
    const rp = spec.template?.spec?.restartPolicy;
    if (rp !== 'Always')
      errs.push(fieldErr.notSupported('spec.template.spec.restartPolicy', rp ?? '', ['Always']));
    if (spec.template?.spec?.activeDeadlineSeconds !== undefined) {
      errs.push(
        fieldErr.forbidden(
          'spec.template.spec.activeDeadlineSeconds',
          'activeDeadlineSeconds in ReplicaSet is not Supported',
        ),
      );
    }
  }
  errs.push(...validateStrategy(spec.strategy));
  errs.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds ?? 0));
  errs.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  if (spec.progressDeadlineSeconds !== undefined) {
    errs.push(...nonNegative('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(
        fieldErr.invalid(
          'spec.progressDeadlineSeconds',
          spec.progressDeadlineSeconds,
          'must be greater than minReadySeconds',
        ),
      );
    }
  }
  // apps/v1 Deployments cannot change their selector.
  if (ctx.old && !deepEqual(ctx.old.spec?.selector, spec.selector)) {
    errs.push(fieldErr.invalidRaw('spec.selector', goLabelSelector(spec.selector), 'field is immutable'));
  }
  return errs;
}

export const deployments: ResourceType = builtin({
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: ['status'],
  generation: true,
  ...decoding('apps/v1', 'Deployment'),
  defaults(obj, ctx) {
    const spec = (obj.spec ??= {});
    spec.replicas ??= 1;
    const strategy = (spec.strategy ??= {});
    strategy.type ||= 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') {
      const ru = (strategy.rollingUpdate ??= {});
      ru.maxUnavailable ??= '25%';
      ru.maxSurge ??= '25%';
    }
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.template ??= {};
    defaultTemplate(spec.template);
    if (ctx.operation === 'create') obj.status = {};
  },
  validate: validateDeployment,
  warnings: templateWarnings((o) => o?.spec?.template, 'spec.template'),
});

/** What an update of a StatefulSet's spec may change; the rest (volumeClaimTemplates…) is fixed. */
const STATEFULSET_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

function withoutMutable(spec: Obj | undefined): Obj {
  const rest: Obj = { ...(spec ?? {}) };
  for (const k of STATEFULSET_MUTABLE) delete rest[k];
  return rest;
}

function defaultClaimTemplate(claim: Obj): void {
  claim.apiVersion ??= 'v1';
  claim.kind ??= 'PersistentVolumeClaim';
  claim.metadata = { creationTimestamp: null, ...(claim.metadata ?? {}) };
  claim.spec ??= {};
  defaultClaimSpec(claim.spec);
  claim.status ??= { phase: 'Pending' };
}

function validateRetention(policy: unknown): FieldError[] {
  if (!isPlainObject(policy)) return [];
  const errs: FieldError[] = [];
  for (const f of ['whenDeleted', 'whenScaled']) {
    if (!['Retain', 'Delete'].includes(policy[f])) {
      errs.push(
        fieldErr.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, policy[f] ?? '', [
          'Retain',
          'Delete',
        ]),
      );
    }
  }
  return errs;
}

function validateUpdateStrategy(strategy: Obj | undefined): FieldError[] {
  const s = strategy ?? {};
  switch (s.type) {
    case 'OnDelete':
      if (s.rollingUpdate === undefined) return [];
      return [
        fieldErr.invalidRaw(
          'spec.updateStrategy.rollingUpdate',
          goStruct('apps.RollingUpdateStatefulSetStrategy', [
            ['Partition', String(s.rollingUpdate.partition ?? 0)],
            ['MaxUnavailable', goPointer('intstr.IntOrString', s.rollingUpdate.maxUnavailable)],
          ]),
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      ];
    case 'RollingUpdate': {
      const ru = s.rollingUpdate;
      if (!isPlainObject(ru)) return [];
      const errs = nonNegative('spec.updateStrategy.rollingUpdate.partition', ru.partition ?? 0);
      if (ru.maxUnavailable !== undefined) {
        errs.push(
          ...validateIntOrPercent(ru.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'),
        );
      }
      return errs;
    }
    default:
      return [
        fieldErr.invalidRaw(
          'spec.updateStrategy',
          `apps.StatefulSetUpdateStrategy{Type:${goQuote(s.type ?? '')}}`,
          "must be 'RollingUpdate' or 'OnDelete'",
        ),
      ];
  }
}

/**
 * ValidateStatefulSetSpec. Upstream does not validate a StatefulSet's pod spec (a TODO there),
 * only the template's labels and annotations: a mount of a claim template passes (19 #64).
 */
function validateStatefulSet(obj: Obj, ctx: WriteContext): FieldError[] {
  const spec = (obj.spec ?? {}) as Obj;
  const errs = validateObjectMeta(obj.metadata, isDns1123Subdomain, true);
  if (!spec.podManagementPolicy) errs.push(fieldErr.required('spec.podManagementPolicy'));
  else if (!['OrderedReady', 'Parallel'].includes(spec.podManagementPolicy)) {
    errs.push(
      fieldErr.invalid(
        'spec.podManagementPolicy',
        spec.podManagementPolicy,
        "must be 'OrderedReady' or 'Parallel'",
      ),
    );
  }
  errs.push(...validateUpdateStrategy(spec.updateStrategy));
  errs.push(...validateRetention(spec.persistentVolumeClaimRetentionPolicy));
  errs.push(...nonNegative('spec.replicas', spec.replicas));
  errs.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds ?? 0));
  errs.push(...validateSelector(spec, 'statefulset'));
  if (!selectorConverts(spec.selector)) {
    // Upstream gives this one no message.
    errs.push({
      type: 'Invalid',
      field: 'spec.selector',
      detail: `Invalid value: ${goLabelSelector(spec.selector)}`,
    });
  } else {
    errs.push(...validateTemplateSelected(spec));
    const meta = spec.template?.metadata ?? {};
    errs.push(...validateLabels(meta.labels, 'spec.template.labels'));
    errs.push(...validateAnnotations(meta.annotations, 'spec.template.annotations'));
  }
  const rp = spec.template?.spec?.restartPolicy;
  if (rp !== 'Always')
    errs.push(fieldErr.notSupported('spec.template.spec.restartPolicy', rp ?? '', ['Always']));
  if (spec.template?.spec?.activeDeadlineSeconds !== undefined) {
    errs.push(
      fieldErr.forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in StatefulSet is not Supported',
      ),
    );
  }
  if (ctx.operation === 'update' && !deepEqual(withoutMutable(ctx.old?.spec), withoutMutable(spec))) {
    errs.push(
      fieldErr.forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}

export const statefulsets: ResourceType = builtin({
  group: 'apps',
  version: 'v1',
  resource: 'statefulsets',
  kind: 'StatefulSet',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  subresources: ['status'],
  generation: true,
  ...decoding('apps/v1', 'StatefulSet'),
  defaults(obj, ctx) {
    const spec = (obj.spec ??= {});
    spec.podManagementPolicy ||= 'OrderedReady';
    const strategy = (spec.updateStrategy ??= {});
    if (!strategy.type) {
      strategy.type = 'RollingUpdate';
      strategy.rollingUpdate ??= {};
    }
    if (strategy.type === 'RollingUpdate' && isPlainObject(strategy.rollingUpdate))
      strategy.rollingUpdate.partition ??= 0;
    const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
    retention.whenDeleted ||= 'Retain';
    retention.whenScaled ||= 'Retain';
    spec.replicas ??= 1;
    spec.revisionHistoryLimit ??= 10;
    spec.serviceName ??= '';
    for (const claim of (spec.volumeClaimTemplates ?? []) as Obj[]) defaultClaimTemplate(claim);
    spec.template ??= {};
    defaultTemplate(spec.template);
    if (ctx.operation === 'create') obj.status = { replicas: 0, availableReplicas: 0 };
  },
  validate: validateStatefulSet,
  warnings: templateWarnings((o) => o?.spec?.template, 'spec.template'),
});
