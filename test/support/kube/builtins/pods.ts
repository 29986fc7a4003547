import { notFound } from '../errors';
import { subresourceHandlers } from '../handlers/subresources';
import type { ResourceType } from '../resources';
import type { Obj } from '../types';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';
import { defaultPodSpec } from './podSpec';

/**
 * v1 Pod with the defaults and ServiceAccount admission of 09 #4 (token volume with the three
 * upstream sources; the OpenShift `openshift-service-ca.crt` source is not part of Kubernetes).
 */
export const pods: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: ['binding', 'status'],
  fieldLabels: {
    'spec.nodeName': (o) => o.spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => o.spec?.restartPolicy,
    'spec.schedulerName': (o) => o.spec?.schedulerName,
    'spec.serviceAccountName': (o) => o.spec?.serviceAccountName,
    'status.phase': (o) => o.status?.phase,
    'status.podIP': (o) => o.status?.podIP ?? '',
  },
  defaults(obj, ctx) {
    const spec = (obj.spec = obj.spec ?? {});
    defaultPodSpec(spec, false);
    if (ctx.operation !== 'create') return;
    spec.serviceAccountName = spec.serviceAccountName ?? 'default';
    spec.serviceAccount = spec.serviceAccountName;
    spec.tolerations = [
      ...(spec.tolerations ?? []),
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      {
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ];
    spec.priority = spec.priority ?? 0;
    spec.enableServiceLinks = spec.enableServiceLinks ?? true;
    spec.preemptionPolicy = spec.preemptionPolicy ?? 'PreemptLowerPriority';
    obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
  },
  validate: (obj: Obj) => validateSubdomainName('metadata.name', obj.metadata.name),
});

/** pods/binding (the scheduler's request, played by the recorder in 09 #5): sets spec.nodeName. */
subresourceHandlers.set('pods/binding', (svc, ctx) => {
  const ns = ctx.info.namespace!;
  const name = ctx.info.name!;
  const pod = svc.store.get('/pods', ns, name);
  if (!pod) throw notFound('pods', '', name);
  const body = JSON.parse(ctx.rawBody || '{}') as Obj;
  pod.spec.nodeName = body.target?.name;
  svc.store.put('/pods', pod, 'MODIFIED');
  svc.afterWrite();
  return {
    status: 201,
    body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
  };
});
