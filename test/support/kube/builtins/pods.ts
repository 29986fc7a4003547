import { conflict, notFound } from '../errors';
import { subresourceHandlers } from '../handlers/subresources';
import type { ResourceType } from '../resources';
import { rfc3339, type Obj } from '../types';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';
import { defaultPodSpec } from './podSpec';
import { admitServiceAccount } from './serviceAccountAdmission';

/**
 * v1 Pod with the defaults of 09 #4 and, on create, the ServiceAccount admission plugin
 * (serviceAccountAdmission.ts). Strategic merge patches (the kubelet's pods/status) follow the
 * merge keys of the real schema.
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
    if (obj.status) defaultPodStatus(obj.status as Obj);
    if (ctx.operation !== 'create') return;
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
  admit: admitServiceAccount,
  validate: (obj: Obj) => validateSubdomainName('metadata.name', obj.metadata.name),
});

/**
 * What Go's encoding gives fields the status writer left out (09 #7): a condition's times are
 * null, a container status always has its state, lastState, ready, restartCount, image, imageID.
 */
function defaultPodStatus(status: Obj): void {
  for (const condition of (status.conditions ?? []) as Obj[]) {
    condition.lastProbeTime = condition.lastProbeTime ?? null;
    condition.lastTransitionTime = condition.lastTransitionTime ?? null;
  }
  for (const key of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses']) {
    for (const container of (status[key] ?? []) as Obj[]) {
      container.name = container.name ?? '';
      container.state = container.state ?? {};
      container.lastState = container.lastState ?? {};
      container.ready = container.ready ?? false;
      container.restartCount = container.restartCount ?? 0;
      container.image = container.image ?? '';
      container.imageID = container.imageID ?? '';
    }
  }
}

/** pods/binding (the scheduler's request, played by the recorder in 09 #5): sets spec.nodeName. */
subresourceHandlers.set('pods/binding', (svc, ctx) => {
  const ns = ctx.info.namespace!;
  const name = ctx.info.name!;
  const pod = svc.store.get('/pods', ns, name);
  if (!pod) throw notFound('pods', '', name);
  const body = JSON.parse(ctx.rawBody || '{}') as Obj;
  const refuse = (why: string) => conflict('pods/binding', '', name, why);
  if (pod.metadata.deletionTimestamp)
    throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
  if (pod.spec.nodeName) throw refuse(`pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
  pod.spec.nodeName = body.target?.name;
  if (body.metadata?.annotations) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...body.metadata.annotations };
  }
  // The scheduler's condition, added by the binding itself (09 #6).
  const conditions = ((pod.status ??= {}).conditions ??= []) as Obj[];
  const at = conditions.findIndex((c) => c.type === 'PodScheduled');
  const scheduled = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: rfc3339(svc.now()),
  };
  if (at < 0) conditions.push(scheduled);
  else if (conditions[at]!.status !== 'True') conditions[at] = scheduled;
  svc.store.put('/pods', pod, 'MODIFIED');
  svc.afterWrite();
  return {
    status: 201,
    body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 },
  };
});
