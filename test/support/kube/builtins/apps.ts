import { fieldErr, type FieldError } from '../errors';
import type { ResourceType, WriteContext } from '../resources';
import { deepEqual, isPlainObject, type Obj } from '../types';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';
import { defaultWorkloadTemplate } from './podTemplates';
import { schemaChecks } from './schemaChecks';

/** The selector must select the template's labels. */
function validateSelector(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const matchLabels = (obj.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
  const labels = (obj.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
  if (!isPlainObject(obj.spec?.selector)) errs.push(fieldErr.required('spec.selector'));
  else if (Object.entries(matchLabels).some(([k, v]) => labels[k] !== v)) {
    errs.push(
      fieldErr.invalidRaw(
        'spec.template.metadata.labels',
        `map[string]string{${Object.entries(labels)
          .map(([k, v]) => `"${k}":"${v}"`)
          .join(', ')}}`,
        '`selector` does not match template `labels`',
      ),
    );
  }
  return errs;
}

/** A Deployment's selector cannot change once set (apps/v1). */
function validateSelectorUnchanged(obj: Obj, ctx: WriteContext): FieldError[] {
  if (!ctx.old || deepEqual(ctx.old.spec?.selector, obj.spec?.selector)) return [];
  return [fieldErr.invalidRaw('spec.selector', 'v1.LabelSelector{…}', 'field is immutable')];
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
  ...schemaChecks('apps/v1', 'Deployment'),
  defaults(obj, ctx) {
    const spec = (obj.spec = obj.spec ?? {});
    spec.replicas = spec.replicas ?? 1;
    spec.strategy = spec.strategy ?? { type: 'RollingUpdate' };
    if (spec.strategy.type === 'RollingUpdate') {
      spec.strategy.rollingUpdate = {
        maxUnavailable: '25%',
        maxSurge: '25%',
        ...spec.strategy.rollingUpdate,
      };
    }
    spec.revisionHistoryLimit = spec.revisionHistoryLimit ?? 10;
    spec.progressDeadlineSeconds = spec.progressDeadlineSeconds ?? 600;
    defaultWorkloadTemplate(spec.template);
    if (ctx.operation === 'create') obj.status = {};
  },
  validate(obj, ctx) {
    schemaChecks('apps/v1', 'Deployment').validate!(obj, ctx);
    return [
      ...validateSubdomainName('metadata.name', obj.metadata.name),
      ...validateSelector(obj),
      ...validateSelectorUnchanged(obj, ctx),
    ];
  },
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
  claim.apiVersion = claim.apiVersion ?? 'v1';
  claim.kind = claim.kind ?? 'PersistentVolumeClaim';
  claim.metadata = { creationTimestamp: null, ...(claim.metadata ?? {}) };
  claim.spec = claim.spec ?? {};
  claim.spec.volumeMode = claim.spec.volumeMode ?? 'Filesystem';
  claim.status = claim.status ?? { phase: 'Pending' };
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
  ...schemaChecks('apps/v1', 'StatefulSet'),
  defaults(obj, ctx) {
    const spec = (obj.spec = obj.spec ?? {});
    spec.replicas = spec.replicas ?? 1;
    spec.podManagementPolicy = spec.podManagementPolicy ?? 'OrderedReady';
    spec.updateStrategy = spec.updateStrategy ?? { type: 'RollingUpdate' };
    if (spec.updateStrategy.type === 'RollingUpdate') {
      spec.updateStrategy.rollingUpdate = { partition: 0, ...spec.updateStrategy.rollingUpdate };
    }
    spec.revisionHistoryLimit = spec.revisionHistoryLimit ?? 10;
    spec.persistentVolumeClaimRetentionPolicy = {
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
      ...spec.persistentVolumeClaimRetentionPolicy,
    };
    for (const claim of (spec.volumeClaimTemplates ?? []) as Obj[]) defaultClaimTemplate(claim);
    defaultWorkloadTemplate(spec.template);
    if (ctx.operation === 'create') obj.status = { replicas: 0, availableReplicas: 0 };
  },
  validate(obj, ctx) {
    schemaChecks('apps/v1', 'StatefulSet').validate!(obj, ctx);
    const errs = [...validateSubdomainName('metadata.name', obj.metadata.name), ...validateSelector(obj)];
    if (ctx.operation === 'update' && !deepEqual(withoutMutable(ctx.old?.spec), withoutMutable(obj.spec))) {
      errs.push(
        fieldErr.forbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
    }
    return errs;
  },
});
