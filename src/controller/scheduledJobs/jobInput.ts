import { shortcutUrlProblem } from '../../alerts/webhookChannels';
import { type JobInput, jobInputSchema } from '../../domain/job';
import { describeZodError } from '../../domain/zodErrors';
import { jobNameAnnotationProblem, jobNameOfScheduledJob } from '../../kube/resources/names';
import { type ScheduledJob, scheduledJobSpecSchema } from '../../kube/resources/scheduledJob';

export type JobInputOutcome = { ok: true; input: JobInput } | { ok: false; message: string };

/**
 * The job row a ScheduledJob stands for, checked by the same rules as a job sent to the REST API
 * (the CRD schema refuses what it can express; the rest, such as a day that never comes or an
 * unknown time zone, is refused here with a message naming the field).
 *
 * The job's API name is the resource's name (or the name it was created under, see
 * `jobNameOfScheduledJob`); outside the service's own namespace it is qualified as
 * `namespace.name`, so that jobs of different namespaces never collide in the API.
 */
export function jobInputOfScheduledJob(resource: ScheduledJob, homeNamespace: string): JobInputOutcome {
  const spec = scheduledJobSpecSchema.safeParse(resource.spec ?? {});
  if (!spec.success) return { ok: false, message: describeZodError(spec.error, 'spec') };
  const { schedule, command, timeZone, suspend, timeout, retry, description, tags } = spec.data;
  const { lateAfterSeconds, catchUp, allowDuplicateSlots } = spec.data;
  for (const key of ['onFailure', 'onSuccess', 'onComplete', 'onMissed'] as const) {
    const url = spec.data[key];
    const problem = url === undefined ? null : shortcutUrlProblem(url);
    if (problem) return { ok: false, message: `spec.${key}: ${problem}` };
  }
  const annotationProblem = jobNameAnnotationProblem(resource.metadata);
  if (annotationProblem) return { ok: false, message: annotationProblem };
  const name = jobNameOfScheduledJob(resource.metadata);
  const namespace = resource.metadata.namespace ?? homeNamespace;
  const input = jobInputSchema.safeParse({
    name: namespace === homeNamespace ? name : `${namespace}.${name}`,
    schedule,
    command,
    timeout,
    retry: retry ?? null,
    description: description ?? null,
    tags,
    timezone: timeZone ?? null,
    enabled: !suspend,
    lateAfterSeconds,
    catchUp: catchUp ?? null,
    allowDuplicateSlots,
  });
  if (!input.success) {
    const message = describeZodError(input.error);
    // The job's fields come from spec (same names but `timezone`, which is spec.timeZone), its
    // name from metadata.
    return {
      ok: false,
      message: message.startsWith('name:')
        ? `metadata.${message}`
        : `spec.${message.replace(/^timezone:/, 'timeZone:')}`,
    };
  }
  return { ok: true, input: input.data };
}
