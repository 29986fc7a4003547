import { randomBytes } from 'node:crypto';
import type { KubeEmulator } from './emulator';
import type { Obj } from './types';

/** Who a binding names (rbac/v1 Subject). */
export type Subject =
  { kind: 'User' | 'Group'; name: string } | { kind: 'ServiceAccount'; name: string; namespace: string };

/**
 * What to grant: a ClusterRole cluster-wide (a ClusterRoleBinding), a ClusterRole in one namespace
 * (a RoleBinding to it: `view`, `edit`, `admin`, `crondeck-view`…), or a namespace's own Role.
 */
export type Grant = { clusterRole: string; namespace?: string } | { role: string; namespace: string };

/** A ServiceAccount's credentials as a TokenRequest gave them, and the identity the API server sees. */
export interface ServiceAccountCredentials {
  token: string;
  /** `system:serviceaccount:<namespace>:<name>` */
  username: string;
  /** `system:serviceaccounts`, `system:serviceaccounts:<namespace>`, `system:authenticated` */
  groups: string[];
  /** The ServiceAccount's uid (TokenReview's `user.uid`). */
  uid: string;
  /** RFC 3339, from the TokenRequest's status. */
  expirationTimestamp: string;
}

const RBAC_API = '/apis/rbac.authorization.k8s.io/v1';

/** One request as the cluster admin; anything but the expected status is a test setup error. */
async function asAdmin(
  emu: KubeEmulator,
  method: string,
  path: string,
  body: unknown,
  ok: number[],
): Promise<Obj> {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Obj;
  if (!ok.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Binds `subject` to a role, through the API as an admin would (`kubectl create rolebinding`). */
export async function grant(emu: KubeEmulator, subject: Subject, what: Grant): Promise<Obj> {
  const roleRef =
    'role' in what
      ? { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: what.role }
      : { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: what.clusterRole };
  const s: Obj =
    subject.kind === 'ServiceAccount'
      ? { kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace }
      : { kind: subject.kind, apiGroup: 'rbac.authorization.k8s.io', name: subject.name };
  const binding = { metadata: { generateName: 'test-grant-' }, subjects: [s], roleRef };
  return what.namespace
    ? asAdmin(emu, 'POST', `${RBAC_API}/namespaces/${what.namespace}/rolebindings`, binding, [201])
    : asAdmin(emu, 'POST', `${RBAC_API}/clusterrolebindings`, binding, [201]);
}

/**
 * A ServiceAccount's bearer token in one call: creates the namespace and the ServiceAccount when
 * missing, binds it as `grants` say, and asks a TokenRequest (audiences: the API server's unless
 * given; lifetime: 3600 s unless given, at least 600). The token is a real signed JWT that only
 * a TokenReview can read; deleting (or re-creating) the ServiceAccount invalidates it.
 */
export async function serviceAccountToken(
  emu: KubeEmulator,
  namespace: string,
  name: string,
  options: { grants?: Grant[]; audiences?: string[]; expirationSeconds?: number } = {},
): Promise<ServiceAccountCredentials> {
  await asAdmin(emu, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } }, [201, 409]);
  const sa = await asAdmin(
    emu,
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts`,
    { metadata: { name } },
    [201, 409],
  );
  const uid =
    sa.kind === 'ServiceAccount'
      ? (sa.metadata.uid as string)
      : ((
          await asAdmin(
            emu,
            'GET',
            `/api/v1/namespaces/${namespace}/serviceaccounts/${name}`,
            undefined,
            [200],
          )
        ).metadata.uid as string);
  for (const g of options.grants ?? []) await grant(emu, { kind: 'ServiceAccount', name, namespace }, g);
  const spec: Obj = {};
  if (options.audiences) spec.audiences = options.audiences;
  if (options.expirationSeconds !== undefined) spec.expirationSeconds = options.expirationSeconds;
  const requested = await asAdmin(
    emu,
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
    [201],
  );
  return {
    token: requested.status.token as string,
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    uid,
    expirationTimestamp: requested.status.expirationTimestamp as string,
  };
}

/**
 * A bearer token for a person (`User` subjects: what an OIDC or token-file user is to RBAC),
 * accepted by the emulated API server from now on and reviewed by TokenReview as that user, with
 * `system:authenticated` added as the API server adds it. It is opaque, not a JWT.
 */
export function userToken(emu: KubeEmulator, name: string, groups: string[] = []): string {
  const token = `emulated-user-${randomBytes(24).toString('base64url')}`;
  emu.addToken(token, { name, groups });
  return token;
}
