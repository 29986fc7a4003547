import { ApiError } from '../errors';
import { rfc3339 } from '../types';
import type { ResourceType } from '../resources';
import { validateLabelName, validateSubdomainName } from '../validation';
import { builtin } from './common';

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

export const configmaps: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  validate: (obj) => validateSubdomainName('metadata.name', obj.metadata.name),
});

export const serviceaccounts: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  subresources: ['token'],
  validate: (obj) => validateSubdomainName('metadata.name', obj.metadata.name),
});

export const nodes: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'nodes',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  subresources: ['status'],
  patchSchema: { file: 'api__v1.json', schema: 'io.k8s.api.core.v1.Node' },
});
