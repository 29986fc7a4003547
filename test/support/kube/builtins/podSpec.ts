import { isPlainObject, type Obj } from '../types';

/**
 * The defaults of core/v1 that every PodSpec gets, in a Pod or a template (SetDefaults_PodSpec,
 * _Container, _Probe, _HTTPGetAction, _ContainerPort, _ObjectFieldSelector, _Volume and the volume
 * sources), plus what the v1 encoding always shows (`resources: {}`, the deprecated
 * `serviceAccount` mirror of `serviceAccountName`). Pod-only defaults are in pods.ts.
 */

const DEFAULT_MODE = 0o644;

/** SetDefaults_Container's pull policy: Always for `:latest` or no tag, else IfNotPresent. */
function pullPolicy(image: unknown): string {
  if (typeof image !== 'string' || image === '') return 'IfNotPresent';
  const withoutDigest = image.split('@')[0]!;
  const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : undefined;
  if (tag !== undefined) return tag === 'latest' ? 'Always' : 'IfNotPresent';
  return image.includes('@') ? 'IfNotPresent' : 'Always';
}

function defaultHandler(handler: Obj | undefined): void {
  if (!isPlainObject(handler?.httpGet)) return;
  handler.httpGet.path ||= '/';
  handler.httpGet.scheme ||= 'HTTP';
}

function defaultProbe(probe: unknown): void {
  if (!isPlainObject(probe)) return;
  probe.timeoutSeconds ||= 1;
  probe.periodSeconds ||= 10;
  probe.successThreshold ||= 1;
  probe.failureThreshold ||= 3;
  defaultHandler(probe);
  if (isPlainObject(probe.grpc)) probe.grpc.service ??= '';
}

function defaultFieldRef(holder: Obj | undefined): void {
  if (isPlainObject(holder?.fieldRef)) holder.fieldRef.apiVersion ||= 'v1';
  if (isPlainObject(holder?.resourceFieldRef)) holder.resourceFieldRef.divisor ??= '0';
}

function defaultContainer(c: Obj): void {
  c.imagePullPolicy ||= pullPolicy(c.image);
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  c.resources ??= {};
  for (const p of (c.ports ?? []) as Obj[]) p.protocol ||= 'TCP';
  for (const e of (c.env ?? []) as Obj[]) {
    // EnvVar.value is `omitempty` in the v1 encoding: an empty value comes back absent.
    if (e.value === '') delete e.value;
    defaultFieldRef(e.valueFrom);
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
  defaultHandler(c.lifecycle?.postStart);
  defaultHandler(c.lifecycle?.preStop);
}

function defaultItems(source: Obj): void {
  for (const item of (source.items ?? []) as Obj[]) defaultFieldRef(item);
}

const VOLUME_SOURCES = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
  'image',
];

/** The volume sources in the order validation looks at them. */
export function volumeSources(v: Obj): string[] {
  return VOLUME_SOURCES.filter((s) => v[s] !== undefined && v[s] !== null);
}

function defaultVolume(v: Obj): void {
  if (volumeSources(v).length === 0) v.emptyDir = {};
  for (const s of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    if (isPlainObject(v[s])) v[s].defaultMode ??= DEFAULT_MODE;
  }
  if (isPlainObject(v.downwardAPI)) defaultItems(v.downwardAPI);
  if (isPlainObject(v.hostPath)) v.hostPath.type ??= '';
  for (const source of (v.projected?.sources ?? []) as Obj[]) {
    if (isPlainObject(source.downwardAPI)) defaultItems(source.downwardAPI);
    if (isPlainObject(source.serviceAccountToken)) source.serviceAccountToken.expirationSeconds ??= 3600;
  }
  const claim = v.ephemeral?.volumeClaimTemplate?.spec;
  if (isPlainObject(claim)) defaultClaimSpec(claim);
}

/** SetDefaults_PersistentVolumeClaimSpec, and the `resources` struct the encoding always shows. */
export function defaultClaimSpec(spec: Obj): void {
  spec.volumeMode ??= 'Filesystem';
  spec.resources ??= {};
}

export function defaultPodSpec(spec: Obj): void {
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of (spec[list] ?? []) as Obj[]) if (isPlainObject(c)) defaultContainer(c);
  }
  for (const v of (spec.volumes ?? []) as Obj[]) if (isPlainObject(v)) defaultVolume(v);
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  // v1 keeps the deprecated alias: read when the new name is empty, written back from it.
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/**
 * A pod template: its spec's defaults, and `creationTimestamp: null` in its metadata. The spec is
 * a struct in Go, defaulted even when the body has none (08 #12: an empty CronJob's template has
 * restartPolicy Always).
 */
export function defaultTemplate(template: unknown): void {
  if (!isPlainObject(template)) return;
  template.metadata = { creationTimestamp: null, ...(template.metadata ?? {}) };
  template.spec ??= {};
  if (isPlainObject(template.spec)) defaultPodSpec(template.spec);
}
