import type { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';

export interface Answer {
  status: number;
  headers: Headers;
  /** The JSON body, or the text when it is not JSON. */
  body: Obj;
  text: string;
}

/**
 * One request to the emulator as `token` (the admin when undefined, no credentials when null), as
 * client-node sends it (JSON, merge patches with their content type).
 */
export async function call(
  emu: KubeEmulator,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = emu.adminToken,
): Promise<Answer> {
  const headers: Record<string, string> = {
    accept: 'application/json, */*;q=0.8',
    'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
  };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Obj;
  try {
    parsed = JSON.parse(text) as Obj;
  } catch {
    parsed = { text };
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** A SubjectAccessReview as the admin; its status. */
export async function sar(emu: KubeEmulator, spec: Obj): Promise<Obj> {
  const answer = await call(emu, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec,
  });
  if (answer.status !== 201) throw new Error(`SubjectAccessReview: ${answer.status} ${answer.text}`);
  return answer.body.status as Obj;
}

/** A TokenReview as the admin; its status. */
export async function tokenReview(emu: KubeEmulator, token: string, audiences?: string[]): Promise<Obj> {
  const spec: Obj = { token };
  if (audiences) spec.audiences = audiences;
  const answer = await call(emu, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec,
  });
  if (answer.status !== 201) throw new Error(`TokenReview: ${answer.status} ${answer.text}`);
  return answer.body.status as Obj;
}

/** Creates an RBAC object as the admin (`kind` decides the path; `namespace` for Roles and RoleBindings). */
export async function createRbac(emu: KubeEmulator, object: Obj): Promise<Obj> {
  const plural = `${(object.kind as string).toLowerCase()}s`;
  const ns = object.metadata.namespace as string | undefined;
  const path = ns ? `${RBAC}/namespaces/${ns}/${plural}` : `${RBAC}/${plural}`;
  const answer = await call(emu, 'POST', path, { apiVersion: 'rbac.authorization.k8s.io/v1', ...object });
  if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.text}`);
  return answer.body;
}
