import { type ClusterApi, clusterApiAs } from './clusterApi';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** A ServiceAccount that signs in to Crondeck with its own token, as a person would. */
export interface Identity {
  /** `system:serviceaccount:<namespace>:<name>`, as the API server names it. */
  username: string;
  /** A bearer token from its TokenRequest (`kubectl create token`). */
  token: string;
}

/** One write through the API as the kubeconfig's user; anything but `ok` is a setup error. */
async function write(api: ClusterApi, method: string, path: string, body: unknown, ok = [201]): Promise<Obj> {
  const answer = await api.raw(method, path, body);
  if (!ok.includes(answer.status)) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/** Creates the ServiceAccount `name` in `namespace` and asks a token for it. */
export async function serviceAccountIdentity(
  api: ClusterApi,
  namespace: string,
  name: string,
): Promise<Identity> {
  await write(api, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    token: (await tokenOf(api, namespace, name))!,
  };
}

/** A token of the ServiceAccount `name` (its TokenRequest), or null where there is no such account. */
export async function tokenOf(api: ClusterApi, namespace: string, name: string): Promise<string | null> {
  const requested = await write(
    api,
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    [201, 404],
  );
  return (requested.status?.token as string | undefined) ?? null;
}

const serviceAccountSubject = (identity: Identity) => {
  const [, , namespace, name] = identity.username.split(':');
  return { kind: 'ServiceAccount', name, namespace };
};

/**
 * A RoleBinding in `namespace` of `identity` to a ClusterRole (the built-in `view`, `edit`,
 * `admin`) or to a Role of that namespace, as a cluster's admin grants a team.
 */
export async function bindInNamespace(
  api: ClusterApi,
  namespace: string,
  identity: Identity,
  role: { clusterRole: string } | { role: string },
): Promise<void> {
  const [kind, name] = 'clusterRole' in role ? ['ClusterRole', role.clusterRole] : ['Role', role.role];
  const subject = serviceAccountSubject(identity);
  await write(api, 'POST', `${RBAC}/namespaces/${namespace}/rolebindings`, {
    metadata: { name: `${subject.name}-${name}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
    subjects: [subject],
  });
}

/** A Role of `namespace` with these rules. */
export async function createRole(
  api: ClusterApi,
  namespace: string,
  name: string,
  rules: Obj[],
): Promise<void> {
  await write(api, 'POST', `${RBAC}/namespaces/${namespace}/roles`, { metadata: { name }, rules });
}

/**
 * A ClusterRole of non-resource URLs bound to `identity` with a ClusterRoleBinding (the only way
 * they are granted), both named `name`; the returned function deletes them. docs/security.md's
 * cluster-wide operator.
 */
export async function grantNonResourceUrls(
  api: ClusterApi,
  name: string,
  identity: Identity,
  rule: { nonResourceURLs: string[]; verbs: string[] },
): Promise<() => Promise<unknown>> {
  await write(api, 'POST', `${RBAC}/clusterroles`, { metadata: { name }, rules: [rule] });
  await write(api, 'POST', `${RBAC}/clusterrolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [serviceAccountSubject(identity)],
  });
  return async () => {
    await write(api, 'DELETE', `${RBAC}/clusterrolebindings/${name}`, undefined, [200, 404]);
    await write(api, 'DELETE', `${RBAC}/clusterroles/${name}`, undefined, [200, 404]);
  };
}

/** Whether the bearer of `token` may do what `attributes` say (a SelfSubjectAccessReview). */
export async function mayI(api: ClusterApi, token: string, attributes: Obj): Promise<boolean> {
  const review = await write(
    clusterApiAs(api, token),
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: attributes },
    },
  );
  return review.status.allowed === true;
}
