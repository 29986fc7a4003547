import { randomInt } from 'node:crypto';
import { fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import type { Obj } from '../types';
import { validateLabelName } from '../validation';
import { builtin } from './common';
import { schemaChecks } from './schemaChecks';

/** A free-looking address of the default service range 10.96.0.0/12 (the real allocator is random too). */
function allocateClusterIp(): string {
  const n = randomInt(1, (1 << 20) - 1);
  return `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

/** v1 Service: a ClusterIP allocated on create and kept on updates that omit it; port defaults. */
export const services: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  subresources: ['status'],
  ...schemaChecks('v1', 'Service'),
  defaults(obj, ctx) {
    const spec = (obj.spec = obj.spec ?? {});
    spec.type = spec.type ?? 'ClusterIP';
    spec.sessionAffinity = spec.sessionAffinity ?? 'None';
    spec.internalTrafficPolicy = spec.internalTrafficPolicy ?? 'Cluster';
    for (const port of (spec.ports ?? []) as Obj[]) {
      port.protocol = port.protocol ?? 'TCP';
      port.targetPort = port.targetPort ?? port.port;
    }
    const old = ctx.old?.spec as Obj | undefined;
    if (spec.type !== 'ExternalName') {
      // An update that leaves the allocated address out keeps it (the registry's patchAllocatedValues).
      spec.clusterIP = spec.clusterIP || old?.clusterIP || allocateClusterIp();
      spec.clusterIPs = spec.clusterIPs ?? old?.clusterIPs ?? [spec.clusterIP];
      spec.ipFamilies = spec.ipFamilies ?? old?.ipFamilies ?? ['IPv4'];
      spec.ipFamilyPolicy = spec.ipFamilyPolicy ?? old?.ipFamilyPolicy ?? 'SingleStack';
    }
    if (ctx.operation === 'create') obj.status = { loadBalancer: {} };
  },
  validate(obj, ctx) {
    schemaChecks('v1', 'Service').validate!(obj, ctx);
    const errs: FieldError[] = validateLabelName('metadata.name', obj.metadata.name);
    const old = ctx.old?.spec as Obj | undefined;
    if (old?.clusterIP && obj.spec.clusterIP !== old.clusterIP) {
      errs.push(fieldErr.invalid('spec.clusterIPs[0]', obj.spec.clusterIP, 'may not change once set'));
    }
    return errs;
  },
});

/** v1 PersistentVolumeClaim: Pending until a provisioner binds it (none runs here). */
export const persistentvolumeclaims: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
  shortNames: ['pvc'],
  subresources: ['status'],
  ...schemaChecks('v1', 'PersistentVolumeClaim'),
  defaults(obj, ctx) {
    obj.spec = obj.spec ?? {};
    obj.spec.volumeMode = obj.spec.volumeMode ?? 'Filesystem';
    if (ctx.operation === 'create') obj.status = { phase: 'Pending' };
  },
  validate(obj, ctx) {
    schemaChecks('v1', 'PersistentVolumeClaim').validate!(obj, ctx);
    const errs: FieldError[] = [];
    if (!obj.spec.accessModes?.length)
      errs.push(fieldErr.required('spec.accessModes', 'at least 1 access mode is required'));
    if (!obj.spec.resources?.requests?.storage) errs.push(fieldErr.required('spec.resources[storage]'));
    return errs;
  },
});
