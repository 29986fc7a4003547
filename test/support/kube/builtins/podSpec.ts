import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';

/** SetDefaults_PodSpec / _Container as the transcripts show them (07 #17, 09 #2). */
export function defaultPodSpec(spec: Obj, forTemplate: boolean): void {
  for (const c of (spec.containers ?? []) as Obj[]) {
    c.resources = c.resources ?? {};
    c.terminationMessagePath = c.terminationMessagePath ?? '/dev/termination-log';
    c.terminationMessagePolicy = c.terminationMessagePolicy ?? 'File';
    if (!c.imagePullPolicy && typeof c.image === 'string') {
      const tag = /:([^/:@]+)$/.exec(c.image)?.[1];
      c.imagePullPolicy = !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
    }
  }
  if (!forTemplate) spec.restartPolicy = spec.restartPolicy ?? 'Always';
  spec.terminationGracePeriodSeconds = spec.terminationGracePeriodSeconds ?? 30;
  spec.dnsPolicy = spec.dnsPolicy ?? 'ClusterFirst';
  spec.securityContext = spec.securityContext ?? {};
  spec.schedulerName = spec.schedulerName ?? 'default-scheduler';
}

/** A pod template's metadata always carries `creationTimestamp: null` in answers. */
export function defaultTemplate(template: Obj | undefined): void {
  if (!isPlainObject(template)) return;
  template.metadata = { creationTimestamp: null, ...(template.metadata ?? {}) };
  if (isPlainObject(template.spec)) defaultPodSpec(template.spec, true);
}

/** ValidatePodTemplateSpec for a Job's template: containers, images, restartPolicy (08 #10, #12). */
export function validateJobPodTemplate(template: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (template?.spec ?? {}) as Obj;
  const containers = spec.containers as Obj[] | undefined;
  if (!containers || containers.length === 0) {
    errs.push(fieldErr.required(`${path}.spec.containers`));
  } else {
    containers.forEach((c, i) => {
      if (!c.name) errs.push(fieldErr.required(`${path}.spec.containers[${i}].name`));
      if (!c.image) errs.push(fieldErr.required(`${path}.spec.containers[${i}].image`));
    });
  }
  const rp = spec.restartPolicy;
  // Any value but OnFailure/Never is reported as "Required" (08 #10 sends Always).
  if (rp !== 'OnFailure' && rp !== 'Never') {
    errs.push(fieldErr.required(`${path}.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  }
  return errs;
}
