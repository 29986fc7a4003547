import { z } from 'zod';
import { DNS1123_SUBDOMAIN_PATTERN } from '../kube/resources/kubernetesFields';
import { VERSION } from '../version';
import { kubernetesScope } from './environment';

/**
 * What `crondeck controller` reads from its environment beyond what it shares with the service
 * (time zone, SMTP, webhook policy, retention, log level: `readEnvironment`).
 */
export interface ControllerEnvironment {
  reportSecret: string;
  /** Null: all namespaces. */
  watchNamespace: string | null;
  /** Where the REST API creates ScheduledJobs: its jobs keep unqualified names (kubernetesScope). */
  homeNamespace: string;
  /** The controller's own namespace, where its Lease lives. */
  leaseNamespace: string;
  image: string;
  /** The pull policy and pull Secrets of job pods, as the chart sets them for its own pods. */
  imagePullPolicy?: ImagePullPolicy;
  imagePullSecrets?: string[];
  /** Crondeck's own Secrets in its namespace (the database URL's, the report secret's...), which no job may name. */
  ownSecrets?: string[];
  reportUrl: string;
  identity: string;
  leaderElection: boolean;
  healthPort: number;
  /** Every ScheduledJob and Job is reconciled again this often, whatever the watches said. */
  resyncSeconds: number;
}

const IMAGE_PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
type ImagePullPolicy = (typeof IMAGE_PULL_POLICIES)[number];

/** The image job pods run by default: this release's. */
const DEFAULT_JOB_IMAGE = `ghcr.io/crondeck/crondeck:${VERSION}`;

/** A list of Secret names separated by commas (spaces and empty entries ignored). */
const secretNames = () =>
  z
    .string()
    .transform((names) =>
      names
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().regex(DNS1123_SUBDOMAIN_PATTERN, { error: 'must be Secret names separated by commas' }),
      ),
    )
    .default([]);

const schema = z.object({
  DATABASE_URL: z.string({ error: 'is required: the controller shares the service’s database' }),
  SERVICE_REPORT_SECRET: z
    .string({ error: 'is required (the same as the service’s)' })
    .min(32, { error: 'must be at least 32 characters' }),
  CRONDECK_WATCH_NAMESPACE: z.string().optional(),
  POD_NAMESPACE: z.string().optional(),
  // The image of this release, as the chart and deploy/ set it: `latest` would make a cluster pull
  // it on every run (its default pull policy for that tag), so an image loaded on the nodes (kind
  // load) could never be used, and a later release's runner could report to this one.
  CRONDECK_IMAGE: z.string().default(DEFAULT_JOB_IMAGE),
  CRONDECK_IMAGE_PULL_POLICY: z
    .enum(IMAGE_PULL_POLICIES, { error: `must be one of ${IMAGE_PULL_POLICIES.join(', ')}` })
    .optional(),
  // Names of Secrets in the jobs' namespace, separated by commas.
  CRONDECK_IMAGE_PULL_SECRETS: secretNames(),
  // Names of Secrets in the controller's namespace that Crondeck runs on: no job may read them.
  CRONDECK_OWN_SECRETS: secretNames(),
  CRONDECK_REPORT_URL: z.url({
    error: 'is required: the URL pods report to, e.g. http://crondeck.crondeck.svc:7433',
  }),
  POD_NAME: z.string().optional(),
  HOSTNAME: z.string().optional(),
  CRONDECK_LEADER_ELECTION: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  CRONDECK_HEALTH_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int()
    .min(0)
    .max(65535)
    .default(8081),
  CRONDECK_RESYNC_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(10, { error: 'must be at least 10 seconds' })
    .default(600),
});

/**
 * Every variable `crondeck controller` reads besides the service's (`SERVICE_VARIABLES`), which it
 * shares; the chart's tests hold the chart to setting no other.
 */
export const CONTROLLER_VARIABLES = Object.keys(schema.shape);

/** Parses the controller's environment, or throws one message naming every bad variable. */
export function readControllerEnvironment(env: NodeJS.ProcessEnv): ControllerEnvironment {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid environment: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  // Unset: the controller's own namespace. "*": every namespace.
  const scope = kubernetesScope(e.POD_NAMESPACE, e.CRONDECK_WATCH_NAMESPACE);
  return {
    reportSecret: e.SERVICE_REPORT_SECRET,
    watchNamespace: scope.watchNamespace,
    homeNamespace: scope.namespace,
    leaseNamespace: scope.leaseNamespace,
    image: e.CRONDECK_IMAGE,
    imagePullPolicy: e.CRONDECK_IMAGE_PULL_POLICY,
    imagePullSecrets: e.CRONDECK_IMAGE_PULL_SECRETS,
    ownSecrets: e.CRONDECK_OWN_SECRETS,
    reportUrl: e.CRONDECK_REPORT_URL,
    identity: e.POD_NAME ?? e.HOSTNAME ?? `crondeck-controller-${process.pid}`,
    leaderElection: e.CRONDECK_LEADER_ELECTION === 'true',
    healthPort: e.CRONDECK_HEALTH_PORT,
    resyncSeconds: e.CRONDECK_RESYNC_SECONDS,
  };
}
