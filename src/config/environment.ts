import { z } from 'zod';
import { isValidTimeZone } from '../domain/timezone';
import type { LogLevel } from '../logging/logger';
import type { RuntimeKind } from '../runtime/runtime';
import { DEFAULT_READ_STALENESS_MS } from '../store/listChangeFeed';

/** SMTP settings from `SERVICE_SMTP_*`; absent when `SERVICE_SMTP_HOST` is not set. */
export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  from: string;
  username: string | null;
  password: string | null;
  /**
   * AUTH may go over a connection that is not encrypted (SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH): off,
   * a user name makes the connection TLS or nothing, so a server (or someone in between) that offers
   * no STARTTLS never gets the password in the clear.
   */
  allowPlaintextAuth: boolean;
}

/** Everything the service reads from its environment, parsed and checked in one place. */
export interface Environment {
  port: number;
  host: string;
  databaseUrl: string | null;
  /** How long the start waits for a database server that does not take connections yet. */
  databaseWaitSeconds: number;
  dataDir: string;
  apiToken: string | null;
  /** Secret behind the per-job tokens pods report with; null when pods do not report here. */
  reportSecret: string | null;
  defaultTimeZone: string;
  retentionDays: number;
  logLevel: LogLevel;
  smtp: SmtpSettings | null;
  webhookDenyCidrs: string[];
  /** Which runtime fires jobs: `local` (in this process) or `kubernetes` (CronJobs). */
  runtime: RuntimeKind;
  /** Kubernetes mode: where the REST API writes ScheduledJobs, and whose CronJobs pause touches. */
  kubernetes: { namespace: string; watchNamespace: string | null };
  /**
   * How long an idle keep-alive connection stays open: longer than the idle timeout of any proxy
   * or load balancer in front (AWS ALB 60 s, ingress-nginx's upstream keepalive 60 s), so that it
   * is always the proxy that closes the connection, never the service just as the proxy reuses it.
   */
  keepAliveTimeoutSeconds: number;
  /**
   * HTTP connections served at once; more are closed as they arrive. Each holds a file descriptor:
   * a flood of idle connections must not take those the jobs' pipes and the database need.
   */
  maxConnections: number;
  /**
   * After SIGTERM: how long the service keeps serving, with `/health` answering 503, before it
   * closes its listener (the time a cluster takes to stop sending it requests).
   */
  shutdownDrainSeconds: number;
  /** After the listener closes: how long requests in flight get to finish before they are cut. */
  shutdownGraceSeconds: number;
  /**
   * On a database server: how far behind other processes' writes a read may be when it does not ask
   * for `Cache-Control: no-cache` (store/listChangeFeed.ts); 0 makes every read current.
   */
  readStalenessMs: number;
  /**
   * Who may call `/api`: `token` (SERVICE_API_TOKEN, or anyone on a loopback service without one)
   * or `kubernetes` (the cluster's RBAC: a bearer token of the cluster, TokenReview and
   * SubjectAccessReviews; SERVICE_RUNTIME=kubernetes only).
   */
  auth: AuthKind;
  /** SERVICE_AUTH=kubernetes: how long a review's answer is kept (0: none). */
  authCacheSeconds: number;
  /** SERVICE_AUTH=kubernetes: how long a review may take before the request is answered 503. */
  authReviewTimeoutMs: number;
}

/** How `/api` requests are authenticated and authorized (SERVICE_AUTH). */
type AuthKind = 'token' | 'kubernetes';

const boolean = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');
const PORT_MESSAGE = 'must be a port number from 0 to 65535';
const port = z.coerce
  .number({ error: PORT_MESSAGE })
  .int({ error: PORT_MESSAGE })
  .min(0, { error: PORT_MESSAGE })
  .max(65535, { error: PORT_MESSAGE });

/** Options of `crondeck serve` that stand in for a variable; a bad one is named as the option. */
export interface ListenOptions {
  port?: string;
  host?: string;
}

const listenOptionsSchema = z.object({
  '--port': z
    .string()
    .regex(/^[0-9]+$/, { error: PORT_MESSAGE })
    .transform(Number)
    .refine((n) => n <= 65535, { error: PORT_MESSAGE })
    .optional(),
  '--host': z.string().min(1, { error: 'must not be empty' }).optional(),
});
const optional = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/** The placeholders of deploy/base/secret.yaml say CHANGE-ME: a value that still does is not a secret. */
const PLACEHOLDER = /change-me/i;
const notPlaceholder = (what: string) =>
  z.string().refine((value) => !PLACEHOLDER.test(value), {
    error: `still holds a placeholder (it contains CHANGE-ME, as deploy/base/secret.yaml ships it): ${what}`,
    abort: true,
  });
const OWN_SECRET = 'set a secret of your own, e.g. the output of `openssl rand -hex 32`';

const seconds = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(min, { error: `must be ${min} or more seconds` })
    .max(max, { error: `must be at most ${max} seconds` });

/**
 * Far more than a proxy's pool, the dashboards and the scripts of an installation hold, and well
 * below the open-file limit Node starts with (its hard limit: 4096 where the kernel's defaults
 * stand, 524288 under systemd, 1048576 in a container), leaving the rest to jobs and the database.
 */
const DEFAULT_MAX_CONNECTIONS = 1000;

/** Seconds of drain after SIGTERM when none are configured: some in a Kubernetes pod, none elsewhere. */
const POD_DRAIN_SECONDS = 10;

const environmentSchema = z.object({
  PORT: port.default(7433),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: notPlaceholder('put the URL of your PostgreSQL server here').optional(),
  SERVICE_DATABASE_WAIT_SECONDS: z.coerce
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(0, { error: 'must be 0 or more seconds' })
    .default(120),
  SERVICE_DATA_DIR: z.string().default('./data'),
  SERVICE_API_TOKEN: notPlaceholder(OWN_SECRET)
    .min(16, { error: 'must be at least 16 characters' })
    .optional(),
  SERVICE_REPORT_SECRET: notPlaceholder(OWN_SECRET)
    .min(32, { error: 'must be at least 32 characters' })
    .optional(),
  SERVICE_TIMEZONE: z
    .string()
    .refine(isValidTimeZone, { error: 'must be an IANA time zone name' })
    .default('UTC'),
  SERVICE_RETENTION_DAYS: z.coerce.number({ error: 'must be a number of days' }).int().min(1).default(90),
  SERVICE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  SERVICE_SMTP_HOST: z.string().optional(),
  SERVICE_SMTP_PORT: port.default(587),
  SERVICE_SMTP_SECURE: boolean.default(false),
  SERVICE_SMTP_FROM: z.string().optional(),
  SERVICE_SMTP_USERNAME: z.string().optional(),
  SERVICE_SMTP_PASSWORD: z.string().optional(),
  SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH: boolean.default(false),
  SERVICE_WEBHOOK_DENY_CIDRS: z.string().optional(),
  SERVICE_RUNTIME: z.enum(['local', 'kubernetes'], { error: 'must be local or kubernetes' }).default('local'),
  SERVICE_AUTH: z.enum(['token', 'kubernetes'], { error: 'must be token or kubernetes' }).default('token'),
  SERVICE_AUTH_CACHE_SECONDS: seconds(0, 60).default(10),
  SERVICE_AUTH_REVIEW_TIMEOUT_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(100, { error: 'must be at least 100 milliseconds' })
    .max(30_000, { error: 'must be at most 30000 milliseconds' })
    .default(3000),
  POD_NAMESPACE: z.string().optional(),
  CRONDECK_WATCH_NAMESPACE: z.string().optional(),
  SERVICE_KEEP_ALIVE_TIMEOUT_SECONDS: seconds(1, 3600).default(65),
  SERVICE_MAX_CONNECTIONS: z.coerce
    .number({ error: 'must be a number of connections' })
    .int({ error: 'must be a whole number of connections' })
    .min(1, { error: 'must be at least 1' })
    .max(1_000_000, { error: 'must be at most 1000000' })
    .default(DEFAULT_MAX_CONNECTIONS),
  SERVICE_SHUTDOWN_DRAIN_SECONDS: seconds(0, 3600).optional(),
  SERVICE_SHUTDOWN_GRACE_SECONDS: seconds(0, 3600).default(10),
  SERVICE_READ_STALENESS_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(0, { error: 'must be 0 or more milliseconds' })
    .max(1000, { error: 'must be at most 1000 milliseconds' })
    .default(DEFAULT_READ_STALENESS_MS),
  // Set by the kubelet in every pod: where no drain is configured, a pod drains and a laptop does not.
  KUBERNETES_SERVICE_HOST: z.string().optional(),
});

/** Every variable `crondeck serve` reads (the chart's tests hold the chart to setting no other). */
export const SERVICE_VARIABLES = Object.keys(environmentSchema.shape);

/**
 * Parses the environment and the listen options of the command line (`--port` overrides `PORT`,
 * `--host` `HOST`), or throws one message naming every bad variable or option.
 */
export function readEnvironment(env: NodeJS.ProcessEnv, options: ListenOptions = {}): Environment {
  const cleaned = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, optional(value)]));
  // A variable that an option overrides is not read, so it cannot be blamed for the option.
  if (options.port !== undefined) delete cleaned.PORT;
  if (options.host !== undefined) delete cleaned.HOST;
  const result = environmentSchema.safeParse(cleaned);
  const flags = listenOptionsSchema.safeParse({ '--port': options.port, '--host': options.host });
  if (!flags.success) {
    const problems = flags.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid option ${problems.join('; ')}`);
  }
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid environment: ${problems.join('; ')}`);
  }
  const e = result.data;
  if (e.SERVICE_AUTH === 'kubernetes' && e.SERVICE_RUNTIME !== 'kubernetes') {
    throw new Error(
      'invalid environment: SERVICE_AUTH: kubernetes needs SERVICE_RUNTIME=kubernetes (the cluster whose ' +
        'API server reviews the tokens of callers); use SERVICE_AUTH=token (SERVICE_API_TOKEN) on one machine',
    );
  }
  return {
    port: flags.data['--port'] ?? e.PORT,
    host: flags.data['--host'] ?? e.HOST,
    databaseUrl: e.DATABASE_URL ?? null,
    databaseWaitSeconds: e.SERVICE_DATABASE_WAIT_SECONDS,
    dataDir: e.SERVICE_DATA_DIR,
    apiToken: e.SERVICE_API_TOKEN ?? null,
    reportSecret: e.SERVICE_REPORT_SECRET ?? null,
    defaultTimeZone: e.SERVICE_TIMEZONE,
    retentionDays: e.SERVICE_RETENTION_DAYS,
    logLevel: e.SERVICE_LOG_LEVEL,
    smtp: e.SERVICE_SMTP_HOST
      ? {
          host: e.SERVICE_SMTP_HOST,
          port: e.SERVICE_SMTP_PORT,
          secure: e.SERVICE_SMTP_SECURE,
          from: e.SERVICE_SMTP_FROM ?? 'service@localhost',
          username: e.SERVICE_SMTP_USERNAME ?? null,
          password: e.SERVICE_SMTP_PASSWORD ?? null,
          allowPlaintextAuth: e.SERVICE_SMTP_ALLOW_PLAINTEXT_AUTH,
        }
      : null,
    webhookDenyCidrs: (e.SERVICE_WEBHOOK_DENY_CIDRS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    runtime: e.SERVICE_RUNTIME,
    kubernetes: serviceScope(kubernetesScope(e.POD_NAMESPACE, e.CRONDECK_WATCH_NAMESPACE)),
    keepAliveTimeoutSeconds: e.SERVICE_KEEP_ALIVE_TIMEOUT_SECONDS,
    maxConnections: e.SERVICE_MAX_CONNECTIONS,
    shutdownDrainSeconds:
      e.SERVICE_SHUTDOWN_DRAIN_SECONDS ?? (e.KUBERNETES_SERVICE_HOST ? POD_DRAIN_SECONDS : 0),
    shutdownGraceSeconds: e.SERVICE_SHUTDOWN_GRACE_SECONDS,
    readStalenessMs: e.SERVICE_READ_STALENESS_MS,
    auth: e.SERVICE_AUTH,
    authCacheSeconds: e.SERVICE_AUTH_CACHE_SECONDS,
    authReviewTimeoutMs: e.SERVICE_AUTH_REVIEW_TIMEOUT_MS,
  };
}

/**
 * Where the programs act, as both read it. `namespace` holds the ScheduledJobs the REST API creates,
 * and its jobs keep unqualified names: the watched namespace when one is watched (the controller
 * must see what the API writes, and the chart's Roles are granted there), else the pod's, else
 * `default`. `watchNamespace` is the one watched (`*`: null, all). `leaseNamespace`, the pod's own,
 * holds the controller's Lease, whatever it watches.
 */
export function kubernetesScope(
  podNamespace: string | undefined,
  watchNamespace: string | undefined,
): Environment['kubernetes'] & { leaseNamespace: string } {
  const watched = watchNamespace === '*' ? null : (watchNamespace ?? podNamespace ?? 'default');
  const namespace = watched ?? podNamespace ?? 'default';
  return { namespace, watchNamespace: watched, leaseNamespace: podNamespace ?? namespace };
}

/** What the service reads of the scope: it takes no Lease (its judge elects by advisory lock). */
function serviceScope({ namespace, watchNamespace }: ReturnType<typeof kubernetesScope>) {
  return { namespace, watchNamespace };
}
