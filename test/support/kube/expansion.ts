import type { Obj } from './types';

/**
 * What a kubelet does to a container's env values, `command` and `args` before it starts the
 * container (EnvVar.value and Container.command in kube-api/openapi/api__v1.json): `$(VAR)` is
 * replaced by the variable's value, `$$` becomes `$`, and a reference that cannot be resolved stays
 * as written. Pure: the caller fetches the Secrets and ConfigMaps (from the emulator's store, or
 * through the API), these functions only read them. Both stand-in kubelets (test/support/kube/
 * kubelet.ts and the e2e suite's player) use it, so that Crondeck's pods are tested against the
 * rewriting a real cluster does.
 */

/**
 * Expands references as the kubelet's expansion package does: after a `$`, a second `$` is one
 * literal `$`; `(` opens a reference that runs to the first `)` (nested parentheses are not
 * counted), replaced by `lookup(name)` or kept as written when that is undefined or the `)` never
 * comes; any other character is kept together with the `$`. A `$` at the very end stays.
 */
export function expandReferences(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === '$') {
      out += '$';
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close < 0) {
        out += '$(';
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else {
      out += `$${next}`;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** What the kubelet reads to resolve a container's environment: the pod and the objects it names. */
export interface EnvironmentSources {
  pod: Obj;
  secret(name: string): Obj | undefined;
  configMap(name: string): Obj | undefined;
  /** The service variables (`KUBERNETES_SERVICE_HOST`, …) the kubelet adds; none if left out. */
  serviceEnv?: Record<string, string>;
}

/** A container the kubelet cannot start yet: its pod waits with this reason (and retries). */
export class ContainerConfigError extends Error {
  readonly reason = 'CreateContainerConfigError';
}

/** The kubelet's check of an envFrom key (validation.IsEnvVarName): others are skipped. */
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * A container's environment as the kubelet builds it (kubelet_pods.go makeEnvironmentVariables):
 * envFrom first (Secrets' and ConfigMaps' keys, prefixed, never expanded), then `env` in order, a
 * later name replacing an earlier one; a non-empty `value` is expanded against the variables
 * defined before it and the service variables; `valueFrom` is resolved and never expanded. An
 * optional reference to a missing object or key defines nothing; a required one is a
 * ContainerConfigError. The service variables come last, where the container does not define them.
 */
export function containerEnvironment(container: Obj, sources: EnvironmentSources): Map<string, string> {
  const env = new Map<string, string>();
  const service = sources.serviceEnv ?? {};
  const namespace = sources.pod.metadata?.namespace as string;
  for (const from of (container.envFrom ?? []) as Obj[]) {
    const ref = (from.configMapRef ?? from.secretRef) as Obj | undefined;
    if (!ref) continue;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const object = from.configMapRef ? sources.configMap(ref.name) : sources.secret(ref.name);
    if (!object) {
      if (ref.optional) continue;
      throw new ContainerConfigError(`${kind.toLowerCase()} "${ref.name}" not found`);
    }
    for (const [key, value] of Object.entries(dataOf(kind, object))) {
      const name = `${from.prefix ?? ''}${key}`;
      if (ENV_VAR_NAME.test(name)) env.set(name, value);
    }
  }
  for (const variable of (container.env ?? []) as Obj[]) {
    const name = variable.name as string;
    const literal = (variable.value ?? '') as string;
    if (literal !== '' || !variable.valueFrom) {
      env.set(
        name,
        expandReferences(literal, (ref) => env.get(ref) ?? service[ref]),
      );
      continue;
    }
    const from = variable.valueFrom as Obj;
    if (from.fieldRef) {
      env.set(name, downwardField(sources.pod, from.fieldRef.fieldPath));
      continue;
    }
    const keyRef = (from.secretKeyRef ?? from.configMapKeyRef) as Obj | undefined;
    if (!keyRef) throw new ContainerConfigError(`${name}: this stand-in resolves no such valueFrom`);
    const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
    const object = from.secretKeyRef ? sources.secret(keyRef.name) : sources.configMap(keyRef.name);
    const value = object ? dataOf(kind, object)[keyRef.key] : undefined;
    if (value !== undefined) env.set(name, value);
    else if (!keyRef.optional) {
      throw new ContainerConfigError(
        object
          ? `couldn't find key ${keyRef.key} in ${kind} ${namespace}/${keyRef.name}`
          : `${kind.toLowerCase()} "${keyRef.name}" not found`,
      );
    }
  }
  for (const [name, value] of Object.entries(service)) if (!env.has(name)) env.set(name, value);
  return env;
}

/** The argv the container runs: `command` then `args`, each expanded against its environment. */
export function containerArgv(container: Obj, env: Map<string, string>): string[] {
  const expand = (text: string) => expandReferences(text, (name) => env.get(name));
  return [...((container.command ?? []) as string[]), ...((container.args ?? []) as string[])].map(expand);
}

function dataOf(kind: 'Secret' | 'ConfigMap', object: Obj): Record<string, string> {
  const data = (object.data ?? {}) as Record<string, string>;
  if (kind === 'ConfigMap') return data;
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
}

/** The downward API's field paths (podFieldSelectorRuntimeValue), as env values. */
function downwardField(pod: Obj, path: string): string {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return (pod.metadata?.[keyed[1]!]?.[keyed[2]!] as string | undefined) ?? '';
  switch (path) {
    case 'metadata.name':
    case 'metadata.namespace':
    case 'metadata.uid':
      return (pod.metadata?.[path.slice('metadata.'.length)] as string | undefined) ?? '';
    case 'metadata.labels':
    case 'metadata.annotations': {
      const map = (pod.metadata?.[path.slice('metadata.'.length)] ?? {}) as Record<string, string>;
      return Object.keys(map)
        .sort()
        .map((key) => `${key}=${JSON.stringify(map[key])}`)
        .join('\n');
    }
    case 'spec.nodeName':
    case 'spec.serviceAccountName':
      return (pod.spec?.[path.slice('spec.'.length)] as string | undefined) ?? '';
    case 'status.podIP':
    case 'status.hostIP':
      return (pod.status?.[path.slice('status.'.length)] as string | undefined) ?? '';
    case 'status.podIPs':
    case 'status.hostIPs':
      return ((pod.status?.[path.slice('status.'.length)] ?? []) as Obj[]).map((ip) => ip.ip).join(',');
    default:
      throw new ContainerConfigError(`unsupported fieldPath: ${path}`);
  }
}
