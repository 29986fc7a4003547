import type { ObjectCache } from '@kubernetes/client-node';
import type { JobAlertsSync } from '../../alerts/alertConfigService';
import type { AlertConfig } from '../../domain/alertConfig';
import type { Job } from '../../domain/job';
import { statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import type { AlertConfigResource, AlertConfigSpec } from '../../kube/resources/alertConfig';
import {
  alertConfigOfResource,
  alertConfigOfShortcuts,
  type SecretKeyRef,
} from '../../kube/resources/alertShortcuts';
import type { ScheduledJob } from '../../kube/resources/scheduledJob';

/**
 * The alert destinations of a job on a cluster: the ScheduledJob's shortcuts plus every AlertConfig
 * that names it, written to the service's alert configuration (the same one the REST API edits),
 * so alerting works exactly as it does locally. The job's alert policy comes from its
 * `spec.alertPolicy` or from one AlertConfig; a second AlertConfig that sets one is refused. Webhook
 * URLs and signing secrets kept in Secrets are read here and never stored in a custom resource. An
 * AlertConfig that cannot be used (a missing Secret key, a bad URL) is left out and says why in its
 * Ready condition.
 */
export async function syncJobAlerts(
  deps: { cluster: ClusterClient; alertConfigs: ObjectCache<AlertConfigResource>; alerts: JobAlertsSync },
  resource: ScheduledJob,
  job: Job,
): Promise<void> {
  const namespace = resource.metadata.namespace ?? '';
  const configs = deps.alertConfigs
    .list(namespace)
    .filter((config) => config.spec?.jobRef?.name === resource.metadata.name)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const parts: AlertConfig[] = [];
  // One policy per job: the ScheduledJob's own, else the first AlertConfig's (by name).
  let policySetBy: string | null = null;
  const shortcuts = alertConfigOfShortcuts(resource.spec);
  if (shortcuts) {
    parts.push(shortcuts);
    if (shortcuts.policy) policySetBy = `the ScheduledJob's spec.alertPolicy`;
  }
  for (const config of configs) {
    const secrets = await readSecretKeys(deps.cluster, namespace, config.spec);
    let problem = '';
    try {
      const part = alertConfigOfResource(config.spec, (ref) => secrets.get(`${ref.name}/${ref.key}`));
      if (part.policy && policySetBy) {
        problem = `policy: the job's alert policy is already set by ${policySetBy}; only one may set it`;
      } else {
        parts.push(part);
        if (part.policy) policySetBy = `AlertConfig ${config.metadata?.name}`;
      }
    } catch (error) {
      problem = (error as Error).message;
    }
    await writeReadiness(deps.cluster, config, problem);
  }
  const merged: AlertConfig = {
    webhooks: parts.flatMap((part) => part.webhooks),
    emails: parts.flatMap((part) => part.emails),
  };
  const policy = parts.find((part) => part.policy)?.policy;
  if (policy) merged.policy = policy;
  await deps.alerts.sync(job.id, merged);
}

/** The Secret keys an alert spec's webhooks name (`name/key` → value); a missing one is absent. */
export async function readSecretKeys(
  cluster: ClusterClient,
  namespace: string,
  spec: Pick<AlertConfigSpec, 'webhooks'> | undefined,
): Promise<Map<string, string>> {
  const refs: SecretKeyRef[] = (spec?.webhooks ?? []).flatMap((webhook) => [
    ...(webhook.urlFrom ? [webhook.urlFrom.secretKeyRef] : []),
    ...(webhook.secretRef ? [webhook.secretRef] : []),
  ]);
  const values = new Map<string, string>();
  for (const ref of refs) {
    try {
      const secret = await cluster.readSecret(namespace, ref.name);
      const encoded = secret.data?.[ref.key];
      if (encoded !== undefined)
        values.set(`${ref.name}/${ref.key}`, Buffer.from(encoded, 'base64').toString('utf8'));
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  return values;
}

async function writeReadiness(
  cluster: ClusterClient,
  config: AlertConfigResource,
  problem: string,
): Promise<void> {
  const status = problem ? 'False' : 'True';
  const reason = problem ? 'InvalidDestination' : 'Applied';
  const message = problem || 'the destinations alert the job';
  const generation = config.metadata?.generation ?? 0;
  const previous = config.status?.conditions?.find((condition) => condition.type === 'Ready');
  if (
    previous?.status === status &&
    previous.reason === reason &&
    previous.message === message &&
    config.status?.observedGeneration === generation
  ) {
    return;
  }
  await cluster.patchAlertConfigStatus(config.metadata?.namespace ?? '', config.metadata?.name ?? '', {
    observedGeneration: generation,
    conditions: [
      {
        type: 'Ready',
        status,
        reason,
        message,
        observedGeneration: generation,
        lastTransitionTime:
          previous?.status === status
            ? previous.lastTransitionTime
            : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    ],
  });
}
