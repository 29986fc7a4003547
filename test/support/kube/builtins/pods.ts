import { conflict, fieldErr, notEmulated, notFound, type FieldError } from '../errors';
import { subresourceHandlers } from '../handlers/subresources';
import type { ResourceType, WriteContext } from '../resources';
import { clone, deepEqual, isPlainObject, rfc3339, type Obj } from '../types';
import { builtin } from './common';
import { decoding } from './decoding';
import { validateObjectMeta } from './metaValidation';
import { isDns1123Subdomain } from './nameRules';
import { defaultPodSpec } from './podSpec';
import { validatePodSpec } from './podValidation';
import { podSpecWarnings } from './podWarnings';
import { addQuantities, compareQuantities, parseQuantity, type Quantity } from './quantity';
import { admitServiceAccount } from './serviceAccountAdmission';

/** SetDefaults_Pod: what only a Pod (not a template) gets. */
function defaultPodOnly(spec: Obj): void {
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const limits = c.resources?.limits;
    if (!isPlainObject(limits)) continue;
    // Limits without requests: the requests are the limits (19 #56).
    c.resources.requests = { ...limits, ...(c.resources.requests ?? {}) };
  }
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork === true) {
    for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
      for (const p of list(c.ports)) p.hostPort ||= p.containerPort;
    }
  }
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** The pod's QoS class from its containers' cpu and memory requests and limits (qos.GetPodQOS). */
function qosClass(spec: Obj): string {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const add = (m: Map<string, Quantity>, k: string, q: Quantity) =>
    m.set(k, m.has(k) ? addQuantities(m.get(k)!, q) : q);
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const found = new Set<string>();
    for (const [kind, into] of [
      ['requests', requests],
      ['limits', limits],
    ] as [string, Map<string, Quantity>][]) {
      for (const [name, v] of Object.entries((c.resources?.[kind] ?? {}) as Record<string, string>)) {
        if (name !== 'cpu' && name !== 'memory') continue;
        const q = parseQuantity(String(v));
        if (q.nanos <= 0n) continue;
        add(into, name, q);
        if (kind === 'limits') found.add(name);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  for (const [name, q] of requests) {
    const limit = limits.get(name);
    if (!limit || compareQuantities(limit, q) !== 0) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** What an update of a pod may change in its spec (ValidatePodUpdate). */
function mutableStripped(spec: Obj | undefined): Obj {
  const s = clone(spec ?? {});
  for (const c of [...list(s.containers), ...list(s.initContainers)]) delete c.image;
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.terminationGracePeriodSeconds;
  delete s.schedulingGates;
  return s;
}

function validatePod(pod: Obj, ctx: WriteContext): FieldError[] {
  const spec = (pod.spec ?? {}) as Obj;
  const errs = [
    ...validateObjectMeta(pod.metadata, isDns1123Subdomain, true),
    ...validatePodSpec(spec, 'spec'),
  ];
  if (!spec.serviceAccountName) {
    list(spec.volumes).forEach((v, i) =>
      list(v.projected?.sources).forEach((s, j) => {
        if (s.serviceAccountToken !== undefined) {
          errs.push(
            fieldErr.forbidden(
              `spec.volumes[${i}].projected.sources[${j}].serviceAccountToken`,
              'must not be specified when serviceAccountName is not set',
            ),
          );
        }
      }),
    );
  }
  for (const kind of ['containers', 'initContainers']) {
    list(spec[kind]).forEach((c, i) => {
      if (typeof c.image === 'string' && c.image.trim() !== c.image) {
        errs.push(
          fieldErr.invalid(
            `spec.${kind}[${i}].image`,
            c.image,
            'must not have leading or trailing whitespace',
          ),
        );
      }
    });
  }
  if (ctx.operation === 'create' && list(spec.ephemeralContainers).length) {
    errs.push(fieldErr.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  }
  if (
    ctx.operation === 'update' &&
    ctx.old &&
    !deepEqual(mutableStripped(ctx.old.spec), mutableStripped(spec))
  ) {
    // The real 422 lists what may change and prints a diff of the two specs.
    throw notEmulated('an update of a pod that changes its spec beyond images, tolerations and deadlines');
  }
  return errs;
}

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
  ...decoding('v1', 'Pod'),
  defaults(obj, ctx) {
    const spec = (obj.spec = obj.spec ?? {});
    defaultPodSpec(spec);
    defaultPodOnly(spec);
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
    spec.preemptionPolicy = spec.preemptionPolicy ?? 'PreemptLowerPriority';
    obj.status = { phase: 'Pending', qosClass: qosClass(spec) };
  },
  admit: admitServiceAccount,
  validate: validatePod,
  warnings: (obj) => podSpecWarnings(obj.spec, ''),
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
