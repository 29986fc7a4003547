import { validateAgainstCrd, validateKubernetesObject } from '../support/openapi/kubernetesSchemas';
import { validateWithPrometheusModels } from './prometheusModels';
import type { K8sObject } from './support';

const OUR_GROUP = 'crondeck.dev';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML of many shapes
type AnyObject = Record<string, any>;

function label(o: K8sObject): string {
  return `${o.kind}/${o.metadata?.name ?? '?'}`;
}

/**
 * Every problem of every object, as "Kind/name: problem": built-in kinds against the Kubernetes
 * schemas, Prometheus Operator kinds also through their models, our own kinds against the CRDs
 * (when `crds` holds them; without them a custom resource is reported as unchecked).
 */
export function problemsOf(objs: K8sObject[], crds: K8sObject[] = []): string[] {
  const problems: string[] = [];
  const prometheus = validateWithPrometheusModels(objs);
  objs.forEach((o, i) => {
    const found: string[] = [];
    if (String(o.apiVersion).startsWith(`${OUR_GROUP}/`)) {
      const crd = crds.find((c) => (c.spec as { names: { kind: string } }).names.kind === o.kind);
      found.push(
        ...(crd
          ? validateAgainstCrd(o, crd as unknown as Parameters<typeof validateAgainstCrd>[1]).errors
          : [`no CRD for ${o.kind} to check it against`]),
      );
    } else {
      found.push(...validateKubernetesObject(o).errors, ...prometheus[i]!);
    }
    problems.push(...found.map((p) => `${label(o)}: ${p}`));
  });
  return problems;
}

/** The pod specs of workloads (Deployment, StatefulSet, Job, CronJob) and bare Pods. */
function podSpecs(objs: K8sObject[]): Array<{ owner: string; spec: Record<string, unknown> }> {
  const out: Array<{ owner: string; spec: Record<string, unknown> }> = [];
  for (const o of objs) {
    const spec = o.spec as AnyObject | undefined;
    if (!spec) continue;
    if (o.kind === 'Pod') out.push({ owner: label(o), spec });
    else if (spec.template?.spec) out.push({ owner: label(o), spec: spec.template.spec });
    else if (spec.jobTemplate?.spec?.template?.spec)
      out.push({ owner: label(o), spec: spec.jobTemplate.spec.template.spec });
  }
  return out;
}

/** What the restricted Pod Security Standard (and a read-only root) asks of each pod. */
export function securityProblems(objs: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const { owner, spec } of podSpecs(objs)) {
    const pod = (spec.securityContext ?? {}) as AnyObject;
    if (pod.runAsNonRoot !== true) problems.push(`${owner}: pod securityContext.runAsNonRoot is not true`);
    if (pod.seccompProfile?.type !== 'RuntimeDefault')
      problems.push(`${owner}: pod seccompProfile is not RuntimeDefault`);
    const containers = [
      ...((spec.initContainers as unknown[]) ?? []),
      ...((spec.containers as unknown[]) ?? []),
    ];
    for (const c of containers as Array<AnyObject>) {
      const sc = c.securityContext ?? {};
      const where = `${owner} container ${c.name}`;
      if (sc.allowPrivilegeEscalation !== false)
        problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
      if (!(sc.capabilities?.drop ?? []).includes('ALL'))
        problems.push(`${where}: capabilities.drop lacks ALL`);
      if (sc.privileged === true) problems.push(`${where}: privileged`);
      if (!c.resources?.requests || !c.resources?.limits)
        problems.push(`${where}: no resource requests and limits`);
      const mountsTmp = (c.volumeMounts ?? []).some((m: { mountPath: string }) => m.mountPath === '/tmp');
      if (!mountsTmp && String(c.image).includes('crondeck/crondeck') && owner.startsWith('Deployment')) {
        problems.push(`${where}: no writable /tmp on a read-only root`);
      }
    }
  }
  return problems;
}

/** RBAC rules flattened to "group/resource verb" lines, sorted, for comparison with the contract. */
/**
 * The Secrets that the shipped pods read (env, envFrom, volumes) and that the controller does not
 * keep from jobs (its CRONDECK_OWN_SECRETS): a ScheduledJob of the namespace could hand them to its
 * pods. Empty when every one is kept.
 */
export function unprotectedSecrets(objs: K8sObject[]): string[] {
  const read = new Set<string>();
  for (const { spec } of podSpecs(objs)) {
    for (const c of [
      ...((spec.initContainers as AnyObject[]) ?? []),
      ...((spec.containers as AnyObject[]) ?? []),
    ]) {
      for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) read.add(e.valueFrom.secretKeyRef.name);
      for (const e of c.envFrom ?? []) if (e.secretRef) read.add(e.secretRef.name);
    }
    for (const v of (spec.volumes as AnyObject[]) ?? []) if (v.secret) read.add(v.secret.secretName);
  }
  const controller = objs.find(
    (o) => o.kind === 'Deployment' && String(o.metadata.name).endsWith('controller'),
  ) as AnyObject | undefined;
  const container = controller?.spec.template.spec.containers[0];
  const own = (container?.env ?? []).find((e: AnyObject) => e.name === 'CRONDECK_OWN_SECRETS')?.value ?? '';
  const kept = new Set(String(own).split(','));
  return [...read].filter((name) => !kept.has(name)).sort();
}

/** Each rule's grants, one a line: `group/resource verb`, or `url /path verb` for a non-resource URL. */
export function flattenRules(
  rules: Array<{ apiGroups?: string[]; resources?: string[]; nonResourceURLs?: string[]; verbs: string[] }>,
): string[] {
  const out = new Set<string>();
  for (const r of rules) {
    for (const g of r.apiGroups ?? ['']) {
      for (const res of r.resources ?? []) for (const v of r.verbs) out.add(`${g || 'core'}/${res} ${v}`);
    }
    for (const url of r.nonResourceURLs ?? []) for (const v of r.verbs) out.add(`url ${url} ${v}`);
  }
  return [...out].sort();
}

const rules = (group: string, resources: string[], verbs: string[]) => ({
  apiGroups: [group],
  resources,
  verbs,
});

/** The contract's RBAC for the API's ServiceAccount in token mode (auth.mode=token). */
export const API_RULES = flattenRules([
  // The REST API's jobs are ScheduledJobs in Kubernetes mode; it never writes AlertConfigs.
  rules('crondeck.dev', ['scheduledjobs'], ['get', 'list', 'create', 'patch', 'delete']),
  // Pause and resume patch the CronJobs; run now makes a Job from one.
  rules('batch', ['cronjobs'], ['get', 'list', 'patch']),
  rules('batch', ['jobs'], ['create']),
]);

/**
 * The API's RBAC in kubernetes mode (the chart's default), where it writes the cluster with each
 * caller's token: reads, and the CronJob patches of pause and resume, its own action.
 */
export const API_RULES_KUBERNETES_AUTH = flattenRules([
  rules('crondeck.dev', ['scheduledjobs', 'alertconfigs'], ['get', 'list', 'watch']),
  rules('batch', ['cronjobs'], ['get', 'list', 'watch', 'patch']),
]);

/** What the API asks of the API server in kubernetes mode: who a token is, what it may do. */
export const API_REVIEW_RULES = flattenRules([
  rules('authentication.k8s.io', ['tokenreviews'], ['create']),
  rules('authorization.k8s.io', ['subjectaccessreviews'], ['create']),
]);

const CRONDECK_KINDS_READ = rules(
  'crondeck.dev',
  [
    'scheduledjobs',
    'scheduledjobs/status',
    'alertconfigs',
    'alertconfigs/status',
    'cronjobwatches',
    'cronjobwatches/status',
  ],
  ['get', 'list', 'watch'],
);

/**
 * What the dashboard reads about no namespace, as Crondeck checks it (under /crondeck): the
 * scheduler's status and schedules described. Not pause, resume or the mailbox.
 */
const DASHBOARD_READS = {
  nonResourceURLs: ['/crondeck/api/scheduler/status', '/crondeck/api/cron/*'],
  verbs: ['get'],
};

/** The ClusterRole for people who read Crondeck's kinds (aggregated into view, edit and admin). */
export const USER_VIEW_RULES = flattenRules([CRONDECK_KINDS_READ, DASHBOARD_READS]);

/** The ClusterRole for people who manage them and run jobs now (aggregated into edit and admin). */
export const USER_EDIT_RULES = flattenRules([
  CRONDECK_KINDS_READ,
  DASHBOARD_READS,
  rules(
    'crondeck.dev',
    ['scheduledjobs', 'alertconfigs', 'cronjobwatches'],
    ['create', 'update', 'patch', 'delete', 'deletecollection'],
  ),
  rules('crondeck.dev', ['scheduledjobs/run'], ['create']),
]);

/** The contract's RBAC for the controller, without the leader-election Lease. */
export const CONTROLLER_RULES = flattenRules([
  // Watched; a ScheduledJob gets its finalizer by a patch, both kinds their status by a patch.
  rules('crondeck.dev', ['scheduledjobs'], ['get', 'list', 'watch', 'patch']),
  rules('crondeck.dev', ['alertconfigs', 'cronjobwatches'], ['get', 'list', 'watch']),
  rules(
    'crondeck.dev',
    ['scheduledjobs/status', 'alertconfigs/status', 'cronjobwatches/status'],
    ['get', 'patch'],
  ),
  // A CronJob owned with blockOwnerDeletion (where OwnerReferencesPermissionEnforcement is on).
  rules('crondeck.dev', ['scheduledjobs/finalizers'], ['update']),
  // Made and replaced whole; the garbage collector deletes them with their ScheduledJob.
  rules('batch', ['cronjobs'], ['get', 'list', 'watch', 'create', 'update']),
  // Catch-up and backfill runs: the controller's slot runner creates their Jobs, or resumes those a
  // caller's token made suspended (a patch) and deletes them when their backfill stops; a run that
  // cannot start is ended by a patch of its Job (runs/startDeadline.ts).
  rules('batch', ['jobs'], ['get', 'list', 'watch', 'create', 'patch', 'delete']),
  rules('', ['pods'], ['get', 'list', 'watch']),
  // Watched CronJobs (issue 40): their pods' logs and their runs' Warning events are read.
  rules('', ['pods/log'], ['get']),
  // The report tokens' Secrets (made, then patched key by key, never deleted), and the Secrets an
  // AlertConfig's webhooks read their URL and signing secret from.
  rules('', ['secrets'], ['get', 'list', 'watch', 'create', 'patch']),
  rules('', ['events'], ['create', 'patch', 'list']),
  rules('events.k8s.io', ['events'], ['create', 'patch', 'list']),
]);

export const LEASE_RULES = flattenRules([
  rules('coordination.k8s.io', ['leases'], ['get', 'create', 'update']),
]);
