import { isIP } from 'node:net';
import { randomInt } from 'node:crypto';
import { fieldErr, invalid, type FieldError } from '../errors';
import type { ResourceType, WriteContext } from '../resources';
import type { Store } from '../store';
import type { Obj } from '../types';
import { builtin } from './common';
import { validatePortNumOrName } from './containerValidation';
import { decoding } from './decoding';
import { goIntOrString, goPointer, goQuote, goStringSlice, goStruct } from './goRender';
import { validateLabels, validateObjectMeta } from './metaValidation';
import { defaultClaimSpec } from './podSpec';
import {
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidPortNum,
} from './nameRules';

/**
 * v1 Service as the recorded server has it: service CIDR 10.0.0.0/24, node ports 30000-32767.
 * Addresses and node ports are allocated before validation (the registry's BeginCreate): a
 * cluster IP outside the range fails even in a dry run (19 #76), while a dry run does not check
 * node ports (19 #75 passes, #189 fails for real) and answers the range's network address as the
 * cluster IP (19 #67).
 */

const SERVICE_NETWORK = '10.0.0.';
const SERVICE_CIDR = '10.0.0.0/24';
const NODE_PORTS: [number, number] = [30000, 32767];
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

const isHeadless = (spec: Obj) => spec.clusterIP === 'None';
const externallyAccessible = (spec: Obj) =>
  spec.type === 'LoadBalancer' ||
  spec.type === 'NodePort' ||
  (spec.type === 'ClusterIP' && list(spec.externalIPs).length > 0);

function usedClusterIps(store: Store): Set<string> {
  return new Set(store.list('/services').flatMap((s) => (s.spec?.clusterIPs ?? []) as string[]));
}

function usedNodePorts(store: Store): Set<number> {
  return new Set(
    store.list('/services').flatMap((s) => list(s.spec?.ports).map((p) => p.nodePort as number)),
  );
}

function allocationError(name: string, errs: FieldError[]) {
  return invalid('Service', '', name, errs);
}

/** allocateCreate: address families, cluster IPs, node ports. */
function allocate(svc: Obj, ctx: WriteContext, store: Store): void {
  if (ctx.operation !== 'create') return;
  const spec = svc.spec as Obj;
  if (spec.type === 'ExternalName') return;
  if (spec.clusterIP && !spec.clusterIPs) spec.clusterIPs = [spec.clusterIP];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= isHeadless(spec) && !spec.selector ? 'RequireDualStack' : 'SingleStack';
  if (!spec.clusterIP) {
    let ip = `${SERVICE_NETWORK}0`;
    if (!ctx.dryRun) {
      const used = usedClusterIps(store);
      do ip = `${SERVICE_NETWORK}${randomInt(2, 255)}`;
      while (used.has(ip));
    }
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  } else if (!isHeadless(spec) && isIP(spec.clusterIP) === 4 && !spec.clusterIP.startsWith(SERVICE_NETWORK)) {
    throw allocationError(svc.metadata.name, [
      fieldErr.invalidRaw(
        'spec.clusterIPs',
        goStringSlice(spec.clusterIPs),
        `failed to allocate IP ${spec.clusterIP}: the provided IP (${spec.clusterIP}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`,
      ),
    ]);
  }
  if (spec.type !== 'NodePort' && spec.type !== 'LoadBalancer') return;
  const used = usedNodePorts(store);
  const errs: FieldError[] = [];
  list(spec.ports).forEach((p, i) => {
    if (p.nodePort) {
      if (ctx.dryRun) return;
      if (p.nodePort < NODE_PORTS[0] || p.nodePort > NODE_PORTS[1]) {
        errs.push(
          fieldErr.invalid(
            `spec.ports[${i}].nodePort`,
            p.nodePort,
            `provided port is not in the valid range. The range of valid ports is ${NODE_PORTS[0]}-${NODE_PORTS[1]}`,
          ),
        );
      } else if (used.has(p.nodePort)) {
        errs.push(
          fieldErr.invalid(`spec.ports[${i}].nodePort`, p.nodePort, 'provided port is already allocated'),
        );
      }
    } else if (!ctx.dryRun) {
      let port: number;
      do port = randomInt(NODE_PORTS[0], NODE_PORTS[1] + 1);
      while (used.has(port));
      used.add(port);
      p.nodePort = port;
    }
  });
  if (errs.length) throw allocationError(svc.metadata.name, errs);
}

function renderServicePort(p: Obj): string {
  return goStruct('core.ServicePort', [
    ['Name', goQuote('')],
    ['Protocol', goQuote(p.protocol ?? '')],
    ['AppProtocol', goPointer('string', undefined)],
    ['Port', String(p.port ?? 0)],
    ['TargetPort', goIntOrString(0)],
    ['NodePort', '0'],
  ]);
}

function validateServicePort(p: Obj, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (requireName && !p.name) errs.push(fieldErr.required(`${path}.name`));
  else if (p.name) {
    errs.push(...isDns1123Label(p.name).map((m) => fieldErr.invalid(`${path}.name`, p.name, m)));
    if (names.has(p.name)) errs.push(fieldErr.duplicate(`${path}.name`, goQuote(p.name)));
    else names.add(p.name);
  }
  errs.push(
    ...isValidPortNum(Number(p.port ?? 0)).map((m) => fieldErr.invalid(`${path}.port`, p.port ?? 0, m)),
  );
  if (!p.protocol) errs.push(fieldErr.required(`${path}.protocol`));
  else if (!['SCTP', 'TCP', 'UDP'].includes(p.protocol))
    errs.push(fieldErr.notSupported(`${path}.protocol`, p.protocol, ['SCTP', 'TCP', 'UDP']));
  errs.push(...validatePortNumOrName(p.targetPort ?? 0, `${path}.targetPort`));
  if (p.appProtocol !== undefined) {
    errs.push(
      ...isQualifiedName(p.appProtocol).map((m) => fieldErr.invalid(`${path}.appProtocol`, p.appProtocol, m)),
    );
  }
  return errs;
}

const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

function validateClusterIps(spec: Obj): FieldError[] {
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = (spec.clusterIPs ?? []) as string[];
  if (spec.clusterIP && ips[0] !== spec.clusterIP) {
    errs.push(
      fieldErr.invalidRaw('spec.clusterIPs', goStringSlice(ips), 'must match `clusterIP` if specified'),
    );
  }
  if (
    spec.ipFamilyPolicy !== undefined &&
    !['SingleStack', 'PreferDualStack', 'RequireDualStack'].includes(spec.ipFamilyPolicy)
  ) {
    errs.push(
      fieldErr.notSupported('spec.ipFamilyPolicy', spec.ipFamilyPolicy, [
        'PreferDualStack',
        'RequireDualStack',
        'SingleStack',
      ]),
    );
  }
  ips.forEach((ip, i) => {
    if (ip === 'None') {
      if (i > 0 || ips.length > 1)
        errs.push(
          fieldErr.invalidRaw(
            'spec.clusterIPs',
            goStringSlice(ips),
            "'None' must be the first and only value",
          ),
        );
      return;
    }
    if (!isIP(ip)) errs.push(fieldErr.invalid(`spec.clusterIPs[${i}]`, ip, IP_MSG));
  });
  for (const [i, family] of ((spec.ipFamilies ?? []) as string[]).entries()) {
    if (!['IPv4', 'IPv6'].includes(family))
      errs.push(fieldErr.notSupported(`spec.ipFamilies[${i}]`, family, ['IPv4', 'IPv6']));
  }
  return errs;
}

function validateService(svc: Obj, ctx: WriteContext): FieldError[] {
  const spec = (svc.spec ?? {}) as Obj;
  const errs = validateObjectMeta(svc.metadata, isDns1035Label, true);
  const ports = list(spec.ports);
  if (ports.length === 0 && !isHeadless(spec) && spec.type !== 'ExternalName')
    errs.push(fieldErr.required('spec.ports'));
  if (spec.type === 'NodePort' && isHeadless(spec)) {
    errs.push(
      fieldErr.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"),
    );
  }
  if (spec.type === 'LoadBalancer' && isHeadless(spec)) {
    errs.push(
      fieldErr.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"),
    );
  }
  if (spec.type === 'ExternalName') {
    if (list(spec.clusterIPs).length)
      errs.push(fieldErr.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (list(spec.ipFamilies).length)
      errs.push(fieldErr.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined)
      errs.push(fieldErr.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = String(spec.externalName ?? '').replace(/\.$/, '');
    if (cname)
      errs.push(...isDns1123Subdomain(cname).map((m) => fieldErr.invalid('spec.externalName', cname, m)));
    else errs.push(fieldErr.required('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (spec.selector !== undefined) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  if (!spec.sessionAffinity) errs.push(fieldErr.required('spec.sessionAffinity'));
  else if (!['ClientIP', 'None'].includes(spec.sessionAffinity))
    errs.push(fieldErr.notSupported('spec.sessionAffinity', spec.sessionAffinity, ['ClientIP', 'None']));
  if (spec.sessionAffinity === 'None' && spec.sessionAffinityConfig !== undefined) {
    errs.push(
      fieldErr.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'),
    );
  }
  errs.push(...validateClusterIps(spec));
  list(spec.externalIPs).forEach((ip, i) => {
    if (!isIP(String(ip))) errs.push(fieldErr.invalid(`spec.externalIPs[${i}]`, ip, IP_MSG));
  });
  const types = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
  if (!spec.type) errs.push(fieldErr.required('spec.type'));
  else if (!types.includes(spec.type)) errs.push(fieldErr.notSupported('spec.type', spec.type, types));
  if (spec.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p.nodePort)
        errs.push(
          fieldErr.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"),
        );
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(fieldErr.duplicate(`spec.ports[${i}].nodePort`, String(p.nodePort)));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.protocol}/${p.port}`;
    if (seen.has(key)) errs.push(fieldErr.duplicate(`spec.ports[${i}]`, renderServicePort(p)));
    seen.add(key);
  });
  if (!externallyAccessible(spec)) {
    if (spec.externalTrafficPolicy) {
      errs.push(
        fieldErr.invalid(
          'spec.externalTrafficPolicy',
          spec.externalTrafficPolicy,
          'may only be set for externally-accessible services',
        ),
      );
    }
  } else if (!['Cluster', 'Local'].includes(spec.externalTrafficPolicy)) {
    errs.push(
      fieldErr.notSupported('spec.externalTrafficPolicy', spec.externalTrafficPolicy ?? '', [
        'Cluster',
        'Local',
      ]),
    );
  }
  if (
    spec.internalTrafficPolicy !== undefined &&
    !['Cluster', 'Local'].includes(spec.internalTrafficPolicy)
  ) {
    errs.push(
      fieldErr.notSupported('spec.internalTrafficPolicy', spec.internalTrafficPolicy, ['Cluster', 'Local']),
    );
  }
  const old = ctx.old?.spec as Obj | undefined;
  if (old?.clusterIP && spec.clusterIP !== old.clusterIP) {
    errs.push(fieldErr.invalid('spec.clusterIPs[0]', spec.clusterIP, 'may not change once set'));
  }
  return errs;
}

/** SetDefaults_Service, and on updates the allocated values the new object leaves out. */
function defaultService(obj: Obj, ctx: WriteContext): void {
  const spec = (obj.spec ??= {});
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (
    spec.sessionAffinity === 'ClientIP' &&
    spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined
  ) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  spec.type ||= 'ClusterIP';
  for (const port of list(spec.ports)) {
    port.protocol ||= 'TCP';
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '')
      port.targetPort = port.port;
  }
  if (externallyAccessible(spec)) spec.externalTrafficPolicy ||= 'Cluster';
  if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(spec.type)) spec.internalTrafficPolicy ??= 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  const old = ctx.old?.spec as Obj | undefined;
  if (old && spec.type !== 'ExternalName') {
    // An update that leaves the allocated values out keeps them (the registry's patchAllocatedValues).
    for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) spec[f] ??= old[f];
    for (const p of list(spec.ports)) {
      const before = list(old.ports).find((o) => o.port === p.port && o.protocol === p.protocol);
      if (before?.nodePort && !p.nodePort && spec.type !== 'ClusterIP') p.nodePort = before.nodePort;
    }
  }
  if (ctx.operation === 'create') obj.status = { loadBalancer: {} };
}

export const services: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  subresources: ['status'],
  ...decoding('v1', 'Service'),
  defaults: defaultService,
  admit: (obj, ctx, svc) => allocate(obj, ctx, svc.store),
  validate: validateService,
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
  ...decoding('v1', 'PersistentVolumeClaim'),
  defaults(obj, ctx) {
    obj.spec = obj.spec ?? {};
    defaultClaimSpec(obj.spec);
    if (ctx.operation === 'create') obj.status = { phase: 'Pending' };
  },
  validate(obj) {
    const errs = validateObjectMeta(obj.metadata, isDns1123Subdomain, true);
    if (!obj.spec.accessModes?.length)
      errs.push(fieldErr.required('spec.accessModes', 'at least 1 access mode is required'));
    if (!obj.spec.resources?.requests?.storage) errs.push(fieldErr.required('spec.resources[storage]'));
    return errs;
  },
});
