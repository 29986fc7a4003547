import type { V1Secret } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, MANAGED_BY_CRONDECK } from '../../kube/labels';
import { REPORT_TOKEN_SECRET_PREFIX } from '../../kube/resources/kubernetesFields';

/**
 * The report tokens of a namespace's jobs live in shared Secrets, a key per job, rather than one
 * Secret per job. It is as safe: a job pod gets only the key its env names, and no ScheduledJob's
 * env may name these Secrets (the CRD and the controller refuse it). And it is cheaper: a new ScheduledJob costs no write of its own,
 * since the keys of many jobs go in one patch (scheduledJobs/tokenSecrets.ts).
 *
 * Jobs are spread over shards of 4,096 ids, so a Secret stays far below the API server's 1 MiB
 * object limit (4,096 keys of about 100 bytes).
 */
const TOKENS_PER_SECRET = 4096;

/** Labels the shards so that the controller's Secret watch (managed-by) sees them. */
export const LABEL_REPORT_TOKENS = 'crondeck.dev/report-tokens';

/** Where a job's token is: the Secret and the key that its pods' env names. */
export interface TokenLocation {
  secretName: string;
  key: string;
}

export function reportTokenLocation(jobId: number): TokenLocation {
  return {
    secretName: `${REPORT_TOKEN_SECRET_PREFIX}${Math.floor(jobId / TOKENS_PER_SECRET)}`,
    key: `job-${jobId}`,
  };
}

/** A shard Secret as the controller creates it, holding the given keys (values in base64). */
export function desiredTokenSecret(
  namespace: string,
  secretName: string,
  data: Record<string, string>,
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretName,
      namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_CRONDECK, [LABEL_REPORT_TOKENS]: 'true' },
    },
    type: 'Opaque',
    data,
  };
}

/** The value of a Secret's `data` for a token. */
export function encodedToken(token: string): string {
  return Buffer.from(token, 'utf8').toString('base64');
}
