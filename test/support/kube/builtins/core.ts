import { ApiError, fieldErr, notEmulated, type FieldError } from '../errors';
import { rfc3339, type Obj } from '../types';
import type { ResourceType, WriteContext } from '../resources';
import { validateLabelName } from '../validation';
import { builtin } from './common';
import { decoding } from './decoding';
import { validateObjectMeta } from './metaValidation';
import { isConfigMapKey, isDns1123Subdomain } from './nameRules';
import { immutableErrors, MAX_DATA_SIZE } from './secrets';

/** Namespace: label kubernetes.io/metadata.name, spec.finalizers [kubernetes], phase Active (02-cr #1). */
export const namespaces: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  subresources: ['status', 'finalize'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  defaults(obj) {
    obj.metadata.labels = {
      ...(obj.metadata.labels ?? {}),
      'kubernetes.io/metadata.name': obj.metadata.name,
    };
  },
  // The strategy, not defaulting, sets these: no field manager owns them (04 #1).
  normalize(obj) {
    obj.spec = obj.spec ?? {};
    if (!obj.spec.finalizers) obj.spec.finalizers = ['kubernetes'];
    obj.status = obj.status ?? { phase: 'Active' };
  },
  validate(obj) {
    return validateLabelName('metadata.name', obj.metadata.name);
  },
  markDeleted(obj, now) {
    obj.metadata.deletionTimestamp = rfc3339(now);
    obj.status = { ...obj.status, phase: 'Terminating' };
  },
  beforeDelete(obj) {
    if (['default', 'kube-system', 'kube-public'].includes(obj.metadata.name)) {
      throw new ApiError(
        403,
        'Forbidden',
        `namespaces "${obj.metadata.name}" is forbidden: this namespace may not be deleted`,
        {
          name: obj.metadata.name,
          kind: 'namespaces',
        },
      );
    }
  },
});

/** ValidateConfigMap: keys, a key in both maps, the size; immutability on updates. */
function validateConfigMap(cm: Obj, ctx: WriteContext): FieldError[] {
  const errs = ctx.operation === 'create' ? [] : immutableErrors(cm, ctx.old, ['data', 'binaryData']);
  errs.push(...validateObjectMeta(cm.metadata, isDns1123Subdomain, true));
  const data = (cm.data ?? {}) as Record<string, string>;
  const binary = (cm.binaryData ?? {}) as Record<string, string>;
  let size = 0;
  for (const k of Object.keys(data).sort()) {
    errs.push(...isConfigMapKey(k).map((m) => fieldErr.invalid(`data[${k}]`, k, m)));
    if (k in binary) errs.push(fieldErr.invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(String(data[k]));
  }
  for (const k of Object.keys(binary).sort()) {
    errs.push(...isConfigMapKey(k).map((m) => fieldErr.invalid(`binaryData[${k}]`, k, m)));
    size += Buffer.from(String(binary[k]), 'base64').length;
  }
  // The server prints the whole ConfigMap as the value here.
  if (size > MAX_DATA_SIZE) throw notEmulated('the size limit error of a ConfigMap');
  return errs;
}

export const configmaps: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  ...decoding('v1', 'ConfigMap'),
  validate: validateConfigMap,
});

export const serviceaccounts: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  subresources: ['token'],
  ...decoding('v1', 'ServiceAccount'),
  validate: (obj) => validateObjectMeta(obj.metadata, isDns1123Subdomain, true),
});

export const nodes: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'nodes',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  subresources: ['status'],
  defaults(obj) {
    obj.status = defaultNodeStatus(obj.status ?? {});
  },
  // The TaintNodesByCondition admission plugin: a new Node is not ready until its controller says so.
  admit(obj, ctx) {
    if (ctx.operation !== 'create') return;
    const spec = (obj.spec ??= {});
    const taints = (spec.taints ?? []) as Obj[];
    if (!taints.some((t) => t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect)) {
      spec.taints = [...taints, { ...NOT_READY_TAINT }];
    }
  },
});

const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

const NODE_INFO_FIELDS = [
  'machineID',
  'systemUUID',
  'bootID',
  'kernelVersion',
  'osImage',
  'containerRuntimeVersion',
  'kubeletVersion',
  'kubeProxyVersion',
  'operatingSystem',
  'architecture',
];

/** What Go's encoding shows of a NodeStatus the writer left partly empty (08 #20). */
function defaultNodeStatus(status: Obj): Obj {
  const port = status.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  const nodeInfo: Obj = { ...(status.nodeInfo ?? {}) };
  for (const field of NODE_INFO_FIELDS) nodeInfo[field] = nodeInfo[field] ?? '';
  return { ...status, daemonEndpoints: { kubeletEndpoint: { Port: port } }, nodeInfo };
}
