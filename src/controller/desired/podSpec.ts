import type {
  V1Container,
  V1EnvVar,
  V1PodSecurityContext,
  V1PodSpec,
  V1ResourceRequirements,
  V1SecurityContext,
} from '@kubernetes/client-node';
import type { ScheduledJobEnvVar, ScheduledJobSpec } from '../../kube/resources/scheduledJob';
import { RUNNER_ENV } from '../../runner/runnerEnvironment';
import { reportTokenLocation } from './reportTokens';
import { SUPERVISE_DIR } from '../../runner/superviseFiles';
import { sidecarScript } from './sidecarScript';
import { kubeletLiteral } from '../../kube/kubeletLiteral';

/** The non-root user of the Crondeck image (distroless "nonroot"). */
const DEFAULT_RUN_AS_USER = 65532;
const RUN_CONTAINER = 'run';
const RUNNER_SIDECAR = 'crondeck-runner';
const JOB_CONTAINER = 'job';
const SUPERVISE_VOLUME = 'crondeck';
const TMP_VOLUME = 'tmp';
/** Where a command starts in Crondeck's image: the one writable directory of its read-only root. */
const WRITABLE_DIR = '/tmp';

/**
 * The runner sidecar's own resources (spec.resources are the job container's). Explicit, so that a
 * namespace whose ResourceQuota counts limits admits the pod (quota admission refuses a container
 * without them). The runner peaks at about 82 MiB, more while a command prints tens of megabytes
 * (docs/kubernetes.md, "A job's memory limit"); it mostly waits.
 */
const RUNNER_SIDECAR_RESOURCES: V1ResourceRequirements = {
  requests: { cpu: '10m', memory: '96Mi' },
  limits: { cpu: '1', memory: '256Mi' },
};

export interface PodSpecInput {
  spec: ScheduledJobSpec;
  jobId: number;
  jobName: string;
  /** The CronJob whose template holds the pod: its Jobs' names say their slots (runner/runSlot.ts). */
  cronJobName: string;
  /** The Crondeck image that has `crondeck run`. */
  image: string;
  imagePullPolicy?: string;
  /** Secrets for pulling the pod's images: Crondeck's, and `spec.image` from the same registry. */
  imagePullSecrets?: string[];
  reportUrl: string;
  runAsUser?: number;
  runAsGroup?: number;
}

// The restricted Pod Security Standard, and a read-only root: a job writes to /tmp or its volumes.
const CONTAINER_SECURITY_CONTEXT: V1SecurityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  readOnlyRootFilesystem: true,
};

function tokenKeyRef(jobId: number): { name: string; key: string } {
  const { secretName, key } = reportTokenLocation(jobId);
  return { name: secretName, key };
}

/** A variable whose value the container must see as written (kubeletLiteral.ts). */
/**
 * A variable of a literal value. An empty value is left out, as the API server stores it (the field
 * is `omitempty`): written as `value: ""`, every comparison with the stored CronJob would differ.
 */
function literal(name: string, value: string): V1EnvVar {
  return value === '' ? { name } : { name, value: kubeletLiteral(value) };
}

function runnerEnv(input: PodSpecInput): V1EnvVar[] {
  const { spec } = input;
  return [
    literal(RUNNER_ENV.reportUrl, input.reportUrl),
    literal(RUNNER_ENV.jobId, String(input.jobId)),
    literal(RUNNER_ENV.jobName, input.jobName),
    literal(RUNNER_ENV.command, spec.command),
    literal(RUNNER_ENV.timeout, String(spec.timeout)),
    literal(RUNNER_ENV.retryMaxAttempts, String(spec.retry?.maxAttempts ?? 0)),
    literal(RUNNER_ENV.retryBaseDelay, String(spec.retry?.baseDelay ?? 0)),
    {
      name: RUNNER_ENV.reportToken,
      valueFrom: { secretKeyRef: tokenKeyRef(input.jobId) },
    },
    { name: RUNNER_ENV.podUid, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.uid' } } },
    { name: RUNNER_ENV.podName, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    {
      name: RUNNER_ENV.runUid,
      valueFrom: {
        fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" },
      },
    },
    // The Job's name, which the Job controller puts on its pods: with the CronJob's, the run's slot.
    {
      name: RUNNER_ENV.kubeJobName,
      valueFrom: {
        fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" },
      },
    },
    literal(RUNNER_ENV.cronJobName, input.cronJobName),
  ];
}

/** The ScheduledJob's `env`: its values are literal (the CRD says so), as in local mode. */
function userEnv(env: ScheduledJobEnvVar[] | undefined): V1EnvVar[] {
  return (env ?? []).map(({ name, value, valueFrom }) => {
    if (valueFrom?.secretKeyRef) return { name, valueFrom: { secretKeyRef: { ...valueFrom.secretKeyRef } } };
    if (valueFrom?.configMapKeyRef)
      return { name, valueFrom: { configMapKeyRef: { ...valueFrom.configMapKeyRef } } };
    return literal(name, value ?? '');
  });
}

/** Quantities as the API server writes them back: strings (`1` → `"1"`), so comparisons are simple. */
function resourcesOf(spec: ScheduledJobSpec): V1ResourceRequirements | undefined {
  const amounts = (from: { cpu?: number | string; memory?: number | string } | undefined) => {
    if (!from) return undefined;
    const out: Record<string, string> = {};
    if (from.cpu !== undefined) out.cpu = String(from.cpu);
    if (from.memory !== undefined) out.memory = String(from.memory);
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const requests = amounts(spec.resources?.requests);
  const limits = amounts(spec.resources?.limits);
  if (!requests && !limits) return undefined;
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

/**
 * The pod of one run. Without spec.image, one container runs `crondeck run`, which runs the command
 * itself. With spec.image, the runner is a native sidecar (an init container that keeps running)
 * and the user's image runs the command, driven through files in /crondeck (sidecarScript.ts);
 * both share the process namespace and the UID, so the runner can signal a timed-out attempt.
 */
export function runnerPodSpec(input: PodSpecInput): V1PodSpec {
  const { spec } = input;
  const user = input.runAsUser ?? DEFAULT_RUN_AS_USER;
  const securityContext: V1PodSecurityContext = {
    runAsNonRoot: true,
    runAsUser: user,
    runAsGroup: input.runAsGroup ?? user,
    seccompProfile: { type: 'RuntimeDefault' },
  };
  const tmpMount = { name: TMP_VOLUME, mountPath: '/tmp' };
  const pullSecrets = input.imagePullSecrets ?? [];
  const common = {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((name) => ({ name })) } : {}),
    securityContext,
  };
  const resources = resourcesOf(spec);

  if (spec.image === undefined) {
    const run: V1Container = withoutUndefined({
      name: RUN_CONTAINER,
      image: input.image,
      imagePullPolicy: input.imagePullPolicy,
      command: ['crondeck', 'run'].map(kubeletLiteral),
      workingDir: WRITABLE_DIR,
      env: [...runnerEnv(input), ...userEnv(spec.env)],
      resources,
      securityContext: CONTAINER_SECURITY_CONTEXT,
      volumeMounts: [tmpMount],
    });
    return { ...common, containers: [run], volumes: [{ name: TMP_VOLUME, emptyDir: {} }] };
  }

  const superviseMount = { name: SUPERVISE_VOLUME, mountPath: SUPERVISE_DIR };
  const runner: V1Container = withoutUndefined({
    name: RUNNER_SIDECAR,
    image: input.image,
    imagePullPolicy: input.imagePullPolicy,
    restartPolicy: 'Always',
    command: ['crondeck', 'run', '--supervise'].map(kubeletLiteral),
    env: [...runnerEnv(input), literal(RUNNER_ENV.superviseDir, SUPERVISE_DIR)],
    resources: RUNNER_SIDECAR_RESOURCES,
    securityContext: CONTAINER_SECURITY_CONTEXT,
    volumeMounts: [superviseMount, tmpMount],
  });
  const userEnvVars = userEnv(spec.env);
  const job: V1Container = withoutUndefined({
    name: JOB_CONTAINER,
    image: spec.image,
    imagePullPolicy: spec.imagePullPolicy,
    command: ['/bin/sh', '-c', sidecarScript(SUPERVISE_DIR)].map(kubeletLiteral),
    env: userEnvVars.length > 0 ? userEnvVars : undefined,
    resources,
    securityContext: CONTAINER_SECURITY_CONTEXT,
    volumeMounts: [superviseMount, tmpMount],
  });
  return {
    ...common,
    shareProcessNamespace: true,
    initContainers: [runner],
    containers: [job],
    volumes: [
      { name: SUPERVISE_VOLUME, emptyDir: {} },
      { name: TMP_VOLUME, emptyDir: {} },
    ],
  };
}
