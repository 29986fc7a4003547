import type { ScheduledJob } from '../../kube/resources/scheduledJob';

/**
 * The Secrets Crondeck itself runs on (its database's URL, the report secret, the API token, the
 * SMTP password), in the namespace they live in: the controller's own, which is also where the
 * chart's jobs live by default.
 *
 * The controller makes the pods of a ScheduledJob with its own permissions, so whoever may create
 * a ScheduledJob gets what its pods read. Any other Secret of the namespace is theirs to name, as
 * in a pod of their own; these would hand them every job's results and the database.
 */
export interface OwnSecrets {
  namespace: string;
  names: ReadonlySet<string>;
}

/**
 * Why a ScheduledJob may not run as it is written because its env names one of Crondeck's own
 * Secrets, or null when it names none. The message names the field, as the other refusals do.
 */
export function ownSecretReference(resource: ScheduledJob, own: OwnSecrets): string | null {
  if ((resource.metadata.namespace ?? '') !== own.namespace) return null;
  for (const [index, variable] of (resource.spec?.env ?? []).entries()) {
    const name = variable.valueFrom?.secretKeyRef?.name;
    if (name !== undefined && own.names.has(name)) {
      return (
        `spec.env[${index}].valueFrom.secretKeyRef: the Secret "${name}" holds Crondeck's own ` +
        'credentials; a job may not read it'
      );
    }
  }
  return null;
}
