import { isPlainObject, type Obj } from '../types';
import { defaultTemplate } from './podSpec';

function defaultProbe(probe: Obj | undefined): void {
  if (!isPlainObject(probe)) return;
  probe.timeoutSeconds = probe.timeoutSeconds ?? 1;
  probe.periodSeconds = probe.periodSeconds ?? 10;
  probe.successThreshold = probe.successThreshold ?? 1;
  probe.failureThreshold = probe.failureThreshold ?? 3;
  if (isPlainObject(probe.httpGet)) probe.httpGet.scheme = probe.httpGet.scheme ?? 'HTTP';
}

/**
 * SetDefaults of a long-running workload's pod template (Deployment, StatefulSet): the pod spec
 * defaults of podSpec.ts plus restartPolicy Always, port protocols, probe timings and the
 * fieldRef apiVersion.
 */
export function defaultWorkloadTemplate(template: Obj | undefined): void {
  if (!isPlainObject(template)) return;
  defaultTemplate(template);
  const spec = template.spec as Obj | undefined;
  if (!isPlainObject(spec)) return;
  spec.restartPolicy = spec.restartPolicy ?? 'Always';
  for (const c of [...((spec.initContainers ?? []) as Obj[]), ...((spec.containers ?? []) as Obj[])]) {
    for (const p of (c.ports ?? []) as Obj[]) p.protocol = p.protocol ?? 'TCP';
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
    for (const e of (c.env ?? []) as Obj[]) {
      if (isPlainObject(e.valueFrom?.fieldRef)) e.valueFrom.fieldRef.apiVersion ??= 'v1';
    }
  }
}
