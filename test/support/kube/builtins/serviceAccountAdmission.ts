import { ApiError } from '../errors';
import type { ServerServices } from '../handlers/context';
import type { WriteContext } from '../resources';
import type { Obj } from '../types';
import { randomSuffix } from '../validation';

/** Where the ServiceAccount plugin mounts the API credentials in every container. */
const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** The bound token's lifetime the plugin asks for (an hour plus the 7 s the kubelet tolerates). */
const TOKEN_EXPIRATION_SECONDS = 3607;

/**
 * The upstream projected volume (09-job-pod #4): token, the cluster CA, the namespace. The
 * recorded server adds a fourth source (ConfigMap `openshift-service-ca.crt`), an OpenShift carry
 * that is not part of Kubernetes, so it is not produced here.
 */
function tokenVolume(name: string): Obj {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
      defaultMode: 0o644,
    },
  };
}

/**
 * The ServiceAccount admission plugin on a pod create (plugin/pkg/admission/serviceaccount):
 * `default` when no ServiceAccount is named; the ServiceAccount must exist (403 otherwise); unless
 * the pod or its ServiceAccount opt out of automounting, every container and init container
 * without a mount at the token path gets one of a `kube-api-access-<5>` projected volume, which is
 * appended to the pod's volumes; the ServiceAccount's imagePullSecrets when the pod names none.
 * Mirror pods (static pods a kubelet reports) are left alone.
 */
export function admitServiceAccount(pod: Obj, ctx: WriteContext, svc: ServerServices): void {
  if (ctx.operation !== 'create') return;
  if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
  const spec = pod.spec as Obj;
  if (!spec.serviceAccountName) spec.serviceAccountName = 'default';
  spec.serviceAccount = spec.serviceAccountName;
  const namespace = pod.metadata.namespace as string;
  const account = svc.store.get('/serviceaccounts', namespace, spec.serviceAccountName);
  if (!account) {
    const who = ctx.nameGenerated ? 'pods' : `pods "${pod.metadata.name}"`;
    throw new ApiError(
      403,
      'Forbidden',
      `${who} is forbidden: error looking up service account ${namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`,
      { name: ctx.nameGenerated ? undefined : pod.metadata.name, kind: 'pods' },
    );
  }
  const automount = spec.automountServiceAccountToken ?? account.automountServiceAccountToken ?? true;
  if (automount) mountToken(spec);
  if (!spec.imagePullSecrets?.length && account.imagePullSecrets?.length) {
    spec.imagePullSecrets = account.imagePullSecrets.map((s: Obj) => ({ name: s.name }));
  }
}

function mountToken(spec: Obj): void {
  const volumes = (spec.volumes ?? []) as Obj[];
  const existing = volumes.find((v) => String(v.name).startsWith(TOKEN_VOLUME_PREFIX));
  const names = new Set(volumes.map((v) => v.name as string));
  let name = existing?.name as string | undefined;
  while (!name || (!existing && names.has(name))) name = `${TOKEN_VOLUME_PREFIX}${randomSuffix()}`;
  let needed = false;
  for (const container of [
    ...((spec.initContainers ?? []) as Obj[]),
    ...((spec.containers ?? []) as Obj[]),
  ]) {
    const mounts = (container.volumeMounts ?? []) as Obj[];
    if (mounts.some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
    container.volumeMounts = [...mounts, { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
    needed = true;
  }
  if (!existing && needed) spec.volumes = [...volumes, tokenVolume(name)];
}
