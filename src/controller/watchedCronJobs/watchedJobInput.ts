import type { V1Container, V1CronJob } from '@kubernetes/client-node';
import { type JobInput, jobInputSchema, MAX_TIMEOUT_SECONDS } from '../../domain/job';
import type { CatchUp } from '../../domain/slots';
import { describeZodError } from '../../domain/zodErrors';

export type WatchedJobInputOutcome = { ok: true; input: JobInput } | { ok: false; message: string };

/** The API name of a watched CronJob's job: apart from every ScheduledJob's (`name`, `namespace.name`). */
function watchedJobName(namespace: string, name: string): string {
  return `cronjob.${namespace}.${name}`;
}

/**
 * The job row that mirrors a plain CronJob: its schedule and time zone, `enabled` from
 * `spec.suspend`, the timeout from the Job template's `activeDeadlineSeconds`, and as the command
 * what its first container runs (for the eye only: Crondeck runs nothing of it). A CronJob without
 * `timeZone` fires in kube-controller-manager's zone, which is UTC on every managed cluster: the
 * row says UTC rather than the service's default. A schedule Crondeck cannot read (a `TZ=` prefix,
 * a descriptor it lacks) is refused with the message, and the CronJob is not watched.
 */
export function watchedJobInput(
  cronJob: V1CronJob,
  lateAfterSeconds: number,
  catchUp: CatchUp | null = null,
): WatchedJobInputOutcome {
  const namespace = cronJob.metadata?.namespace ?? '';
  const name = cronJob.metadata?.name ?? '';
  const spec = cronJob.spec;
  const container = spec?.jobTemplate.spec?.template.spec?.containers[0];
  const input = jobInputSchema.safeParse({
    name: watchedJobName(namespace, name),
    schedule: spec?.schedule ?? '',
    command: commandOf(container),
    // A deadline longer than Crondeck's longest timeout is no timeout it can show.
    timeout: Math.min(spec?.jobTemplate.spec?.activeDeadlineSeconds ?? 0, MAX_TIMEOUT_SECONDS),
    description: `CronJob ${namespace}/${name}`,
    timezone: spec?.timeZone ?? 'UTC',
    enabled: spec?.suspend !== true,
    lateAfterSeconds,
    catchUp,
  });
  if (!input.success) return { ok: false, message: describeZodError(input.error) };
  return { ok: true, input: input.data };
}

function commandOf(container: V1Container | undefined): string {
  if (!container) return '(no container)';
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  return argv.length > 0 ? argv.join(' ') : `(the entrypoint of ${container.image ?? 'its image'})`;
}
