import { KubeConfig } from '@kubernetes/client-node';
import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { ApiServerProxy } from './apiServerProxy';
import { NAMESPACE, serveOnCluster } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The namespace the service writes to (A) and another one (B). */
export const NAMESPACE_A = NAMESPACE;
export const NAMESPACE_B = 'team-b';
/** Where the people's ServiceAccounts live. */
const PEOPLE = 'people';

export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

const crondeck = (resources: string[], verbs: string[]): Rule => ({
  apiGroups: ['crondeck.dev'],
  resources,
  verbs,
});
const batch = (resources: string[], verbs: string[]): Rule => ({ apiGroups: ['batch'], resources, verbs });

/** A `view`-like Role: reads of ScheduledJobs and AlertConfigs. */
const VIEWER_RULES: Rule[] = [
  crondeck(['scheduledjobs'], ['get', 'list', 'watch']),
  crondeck(['alertconfigs'], ['get']),
];

/** An `edit`-like Role: everything on ScheduledJobs, running them, their alerts, and their Jobs. */
const EDITOR_RULES: Rule[] = [
  crondeck(['scheduledjobs'], ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']),
  crondeck(['scheduledjobs/run'], ['create']),
  crondeck(['alertconfigs'], ['get', 'update']),
  batch(['jobs'], ['create', 'delete']),
  batch(['cronjobs'], ['get', 'list']),
];

/** May ask for runs (`scheduledjobs/run`) but may not create the Jobs they are: the cluster says no. */
const PLANNER_RULES: Rule[] = [
  crondeck(['scheduledjobs'], ['get', 'list']),
  crondeck(['scheduledjobs/run'], ['create']),
  batch(['cronjobs'], ['get']),
];

/**
 * What the service's own identity needs with SERVICE_AUTH=kubernetes (docs/security.md): the two
 * reviews, cluster-wide; the list of ScheduledJobs its start checks; CronJobs listed and patched
 * (pause and resume, and a job's suspension by its alert policy or a person's resume).
 */
const SERVICE_CLUSTER_RULES: Rule[] = [
  { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
];
const SERVICE_NAMESPACE_RULES: Rule[] = [
  crondeck(['scheduledjobs'], ['list']),
  batch(['cronjobs'], ['list', 'patch']),
];

export interface Person {
  username: string;
  token: string;
}

export interface RbacCluster {
  viewer: Person;
  editor: Person;
  planner: Person;
  outsider: Person;
  /** The cluster's admin (system:masters) as a caller of the API. */
  admin: Person;
  /** The service's own identity: a ServiceAccount with only SERVICE_*_RULES. */
  service: Person;
}

/** As the admin, a request to the emulator: its status and JSON body. */
export async function asAdmin(emu: KubeEmulator, method: string, path: string, body?: unknown) {
  const response = await fetch(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Obj;
}

/**
 * A ServiceAccount and a token of it (TokenRequest), as `kubectl create token` makes one: for an
 * hour unless `expirationSeconds` says otherwise.
 */
export async function serviceAccountToken(
  emu: KubeEmulator,
  namespace: string,
  name: string,
  expirationSeconds?: number,
): Promise<Person> {
  const existing = emu.objects('serviceaccounts', namespace).some((each) => each.metadata?.name === name);
  if (!existing)
    await asAdmin(emu, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  const request = await asAdmin(
    emu,
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: expirationSeconds === undefined ? {} : { expirationSeconds },
    },
  );
  return { username: `system:serviceaccount:${namespace}:${name}`, token: request.status.token as string };
}

/** A Role of `rules` in `namespace` bound to the ServiceAccount of `person`; the binding's name. */
export async function grantRole(
  emu: KubeEmulator,
  namespace: string,
  role: string,
  rules: Rule[],
  subject: string,
): Promise<string> {
  await asAdmin(emu, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles`, {
    metadata: { name: role },
    rules,
  });
  const binding = `${role}-${subject}`;
  await asAdmin(emu, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
    metadata: { name: binding },
    subjects: [{ kind: 'ServiceAccount', name: subject, namespace: namespaceOfAccount(subject) }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
  });
  return binding;
}

/** The service's ServiceAccount lives in its own namespace, the people's in theirs. */
function namespaceOfAccount(subject: string): string {
  return subject === 'crondeck-service' ? NAMESPACE_A : PEOPLE;
}

/** A ClusterRole of `rules` bound cluster-wide to ServiceAccounts. */
async function grantClusterRole(emu: KubeEmulator, role: string, rules: Rule[], subjects: string[]) {
  await asAdmin(emu, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: role },
    rules,
  });
  await asAdmin(emu, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: role },
    subjects: subjects.map((name) => ({ kind: 'ServiceAccount', name, namespace: namespaceOfAccount(name) })),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
  });
}

/**
 * The people of the tests and their permissions, in namespace A only (B grants them nothing): a
 * viewer, an editor, a planner (may ask for runs, may not create Jobs) and an outsider; the
 * scheduler's status, pause and resume, as non-resource URLs, for the editor. And the service's own identity,
 * with no more than it needs.
 */
export async function setUpPeople(emu: KubeEmulator): Promise<RbacCluster> {
  for (const name of [NAMESPACE_B, PEOPLE]) {
    await asAdmin(emu, 'POST', '/api/v1/namespaces', { metadata: { name } });
  }
  const [viewer, editor, planner, outsider] = await Promise.all(
    ['viewer', 'editor', 'planner', 'outsider'].map((name) => serviceAccountToken(emu, PEOPLE, name)),
  );
  // A day: a pod's own token is renewed by its kubelet; the tests move the cluster's clock by hours.
  const service = await serviceAccountToken(emu, NAMESPACE_A, 'crondeck-service', 86_400);
  await grantRole(emu, NAMESPACE_A, 'viewer', VIEWER_RULES, 'viewer');
  await grantRole(emu, NAMESPACE_A, 'editor', EDITOR_RULES, 'editor');
  await grantRole(emu, NAMESPACE_A, 'planner', PLANNER_RULES, 'planner');
  // docs/security.md's scheduler operator: Crondeck's paths are checked under /crondeck, where
  // no built-in role (system:discovery's `get` on /api/*) grants anything.
  await grantClusterRole(
    emu,
    'crondeck-scheduler',
    [{ nonResourceURLs: ['/crondeck/api/scheduler/*'], verbs: ['get', 'post'] }],
    ['editor'],
  );
  await grantClusterRole(emu, 'crondeck-service-reviews', SERVICE_CLUSTER_RULES, ['crondeck-service']);
  await grantRole(emu, NAMESPACE_A, 'crondeck-service', SERVICE_NAMESPACE_RULES, 'crondeck-service');
  return {
    viewer: viewer!,
    editor: editor!,
    planner: planner!,
    outsider: outsider!,
    admin: { username: 'kubernetes-admin', token: emu.adminToken },
    service,
  };
}

/** A kubeconfig of the cluster at `server` (the proxy) with a bearer token. */
function kubeConfigAt(server: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'cluster', server, skipTLSVerify: true }],
    users: [{ name: 'user', token }],
    contexts: [{ name: 'cluster', cluster: 'cluster', user: 'user', namespace: NAMESPACE_A }],
    currentContext: 'cluster',
  });
  return kc;
}

/**
 * `crondeck serve` with SERVICE_AUTH=kubernetes, as the service's own ServiceAccount, through a
 * proxy that records (and can break) its requests to the API server.
 */
export async function serveWithKubernetesAuth(
  emu: KubeEmulator,
  db: Database,
  service: Person,
  env: Record<string, string> = {},
): Promise<{ service: RunningService; proxy: ApiServerProxy }> {
  const proxy = await ApiServerProxy.start(emu.url);
  try {
    // Reviews get ten seconds: on a loaded two-core CI machine (a browser, the emulator and the
    // controller in one process) a session's reviews have taken over a second. The tests of the
    // timeout set their own (kubernetesAuthReviews.test.ts).
    const running = await serveOnCluster(db, kubeConfigAt(proxy.url, service.token), undefined, {
      env: { SERVICE_AUTH: 'kubernetes', SERVICE_AUTH_REVIEW_TIMEOUT_MS: '10000', ...env },
    });
    return { service: running, proxy };
  } catch (error) {
    await proxy.stop();
    throw error;
  }
}

/** A call of the service's API as `person` (or with `authorization` as given): status and JSON body. */
export async function callAs(
  url: string,
  person: Person | { authorization?: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Obj; headers: Headers }> {
  const authorization = 'token' in person ? `Bearer ${person.token}` : person.authorization;
  const response = await fetch(url + path, {
    method,
    headers: {
      ...(authorization === undefined ? {} : { authorization }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') && text;
  return {
    status: response.status,
    body: json ? (JSON.parse(text) as Obj) : { text },
    headers: response.headers,
  };
}
