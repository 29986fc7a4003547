import type { WriteContext } from '../resources';
import { deepEqual, isPlainObject, type Obj } from '../types';
import { isInteger, parseQuantity } from './quantity';

/**
 * The warnings a pod spec draws on a successful write (pkg/api/pod's GetWarningsForPod and
 * GetWarningsForPodTemplate): duplicate env names (19 #29), a negative grace period (19 #45),
 * fractional byte quantities, deprecated node labels, duplicate image pull secrets.
 */

const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region':
    'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone':
    'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type':
    'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
};

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function fractionalBytes(c: Obj, at: string): string[] {
  const out: string[] = [];
  for (const kind of ['limits', 'requests']) {
    for (const name of ['memory', 'ephemeral-storage']) {
      const v = c.resources?.[kind]?.[name];
      if (v === undefined || isInteger(parseQuantity(String(v)))) continue;
      out.push(
        `${at}.resources.${kind}[${name}]: fractional byte value "${v}" is invalid, must be an integer`,
      );
    }
  }
  return out;
}

/** An env var that hides an earlier one of the same name, unless it only extends it with `$(NAME)`. */
function hiddenEnv(c: Obj, at: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  list(c.env).forEach((e, i) => {
    if (!seen.has(e.name)) {
      seen.add(e.name);
      return;
    }
    const ref = `$(${e.name})`;
    const value = String(e.value ?? '');
    if (e.valueFrom !== undefined || value === ref || !value.includes(ref)) {
      out.push(
        `${at}.env[${i}]: hides previous definition of ${JSON.stringify(e.name)}, which may be dropped when using apply`,
      );
    }
  });
  return out;
}

/** `prefix` is where the pod's fields start: '' for a Pod, `spec.template` for a workload. */
export function podSpecWarnings(spec: unknown, prefix: string): string[] {
  if (!isPlainObject(spec)) return [];
  const at = (p: string) => (prefix ? `${prefix}.spec.${p}` : `spec.${p}`);
  const out: string[] = [];
  for (const key of Object.keys(spec.nodeSelector ?? {})) {
    const msg = DEPRECATED_NODE_LABELS[key];
    if (msg) out.push(`${at(`nodeSelector[${key}]`)}: ${msg}`);
  }
  const secrets = new Set<string>();
  list(spec.imagePullSecrets).forEach((s, i) => {
    if (secrets.has(s.name))
      out.push(`${at(`imagePullSecrets[${i}].name`)}: duplicate name ${JSON.stringify(s.name)}`);
    secrets.add(s.name);
  });
  for (const kind of ['initContainers', 'containers', 'ephemeralContainers']) {
    list(spec[kind]).forEach((c, i) => {
      out.push(...fractionalBytes(c, at(`${kind}[${i}]`)), ...hiddenEnv(c, at(`${kind}[${i}]`)));
    });
  }
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) {
    out.push(
      `${at('terminationGracePeriodSeconds')}: must be >= 0; negative values are invalid and will be treated as 1`,
    );
  }
  return out;
}

/**
 * A workload's WarningsOnCreate / WarningsOnUpdate: the warnings of its pod template, on an update
 * only when the template changed. `at` finds the template in the object.
 */
export function templateWarnings(at: (o: Obj | undefined) => Obj | undefined, prefix: string) {
  return (obj: Obj, ctx: WriteContext): string[] => {
    if (ctx.old && deepEqual(at(ctx.old), at(obj))) return [];
    return podSpecWarnings(at(obj)?.spec, prefix);
  };
}
