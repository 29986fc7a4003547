import type { V1CronJob } from '@kubernetes/client-node';
import { sameQuantity } from './quantity';

type Value = unknown;
type Path = string[];

/**
 * Fields we own that the desired object may leave out. When it does, they must be absent from the
 * stored object too: a hand-added init container or `args` changes what runs. Keyed by the path of
 * the object that holds them (`*` matches any array index).
 */
const OWNED_WHEN_ABSENT: Record<string, string[]> = {
  spec: ['startingDeadlineSeconds'],
  'spec.jobTemplate.spec': ['activeDeadlineSeconds', 'podFailurePolicy'],
  'spec.jobTemplate.spec.template.spec': [
    'imagePullSecrets',
    'initContainers',
    'shareProcessNamespace',
    'hostNetwork',
    'hostPID',
    'hostIPC',
  ],
  'spec.jobTemplate.spec.template.spec.containers.*': [
    'args',
    'env',
    'resources',
    'workingDir',
    'restartPolicy',
  ],
  'spec.jobTemplate.spec.template.spec.initContainers.*': ['args', 'resources', 'workingDir'],
};
// Servers answer `resources: {}` for none; requests or limits added by hand are ours to undo.
const OWNED_RESOURCE_FIELDS = ['requests', 'limits'];

const isObject = (value: Value): value is Record<string, Value> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const isEmpty = (value: Value) =>
  value === undefined ||
  value === null ||
  (Array.isArray(value) && value.length === 0) ||
  (isObject(value) && Object.keys(value).length === 0);

const pattern = (path: Path) => path.map((segment) => (/^\d+$/.test(segment) ? '*' : segment)).join('.');
const inResources = (path: Path) => {
  const index = path.lastIndexOf('resources');
  return index >= 0 && ['requests', 'limits'].includes(path[index + 1] ?? '');
};

/**
 * Compares what we set (`desired`) with what is stored (`actual`): every field of `desired` must
 * be there with the same value; fields the server adds (defaults such as `dnsPolicy`,
 * `terminationMessagePath`, `imagePullPolicy` when we set none, `creationTimestamp: null`) are
 * ignored, except the owned fields above. Quantities compare by amount. Arrays compare in order and
 * length, so an added container or env var is a difference.
 */
function differences(desired: Value, actual: Value, path: Path, out: string[]): void {
  if (isObject(desired)) {
    if (!isObject(actual)) {
      if (!(isEmpty(desired) && isEmpty(actual))) out.push(path.join('.'));
      return;
    }
    for (const [key, value] of Object.entries(desired)) {
      if (value === undefined) continue;
      differences(value, actual[key], [...path, key], out);
    }
    const owned = OWNED_WHEN_ABSENT[pattern(path)] ?? [];
    const ownedHere = path[path.length - 1] === 'resources' ? OWNED_RESOURCE_FIELDS : owned;
    for (const key of ownedHere) {
      if (desired[key] !== undefined || isEmpty(actual[key])) continue;
      // `resources: {requests: {}}` is still no resources.
      const emptyResources =
        key === 'resources' && isObject(actual[key]) && Object.values(actual[key]).every(isEmpty);
      if (!emptyResources) out.push([...path, key].join('.'));
    }
    return;
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(actual)) {
      if (!(isEmpty(desired) && isEmpty(actual))) out.push(path.join('.'));
      return;
    }
    if (desired.length !== actual.length) {
      out.push(path.join('.'));
      return;
    }
    desired.forEach((item, index) => differences(item, actual[index], [...path, String(index)], out));
    return;
  }
  if (inResources(path) && (typeof desired === 'string' || typeof desired === 'number')) {
    if (typeof actual === 'string' || typeof actual === 'number') {
      if (!sameQuantity(desired, actual)) out.push(path.join('.'));
      return;
    }
  }
  if (desired !== actual) out.push(path.join('.'));
}

/** The paths where the stored CronJob departs from the desired one (empty: nothing to write). */
export function cronJobDifferences(desired: V1CronJob, actual: V1CronJob): string[] {
  const out: string[] = [];
  const labels = desired.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(labels)) {
    if (actual.metadata?.labels?.[key] !== value) out.push(`metadata.labels.${key}`);
  }
  for (const owner of desired.metadata?.ownerReferences ?? []) {
    const found = actual.metadata?.ownerReferences?.find((candidate) => candidate.uid === owner.uid);
    if (!found || found.controller !== owner.controller || found.kind !== owner.kind) {
      out.push('metadata.ownerReferences');
    }
  }
  differences(desired.spec, actual.spec, ['spec'], out);
  return out;
}

/** True when the stored CronJob must be written: a field we own differs or is missing. */
export function cronJobNeedsUpdate(desired: V1CronJob, actual: V1CronJob): boolean {
  return cronJobDifferences(desired, actual).length > 0;
}
