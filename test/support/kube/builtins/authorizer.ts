import type { Attributes } from '../auth';
import type { User } from '../handlers/context';
import type { Store } from '../store';
import type { Obj } from '../types';

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

function subjectMatches(s: Subject, user: User, bindingNs: string | undefined): boolean {
  if (s.kind === 'User') return s.name === user.name;
  if (s.kind === 'Group') return user.groups.includes(s.name);
  if (s.kind === 'ServiceAccount')
    return user.name === `system:serviceaccount:${s.namespace ?? bindingNs}:${s.name}`;
  return false;
}

function ruleAllows(rule: Obj, a: Attributes): boolean {
  const has = (list: string[] | undefined, v: string) =>
    (list ?? []).includes('*') || (list ?? []).includes(v);
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(rule.verbs, a.verb) || !has(rule.apiGroups, a.group) || !has(rule.resources, resource))
    return false;
  return !rule.resourceNames?.length || (a.name !== undefined && rule.resourceNames.includes(a.name));
}

/**
 * RBAC over stored Roles/ClusterRoles and their bindings, with the "role … not found" errors
 * that the real authorizer appends to a 403 (12-auth #27).
 */
export function rbacDecision(
  store: Store,
  user: User,
  a: Attributes,
): { allowed: boolean; errors: string[] } {
  const errors: string[] = [];
  const bindings: { b: Obj; ns?: string }[] = [
    ...store.list('rbac.authorization.k8s.io/clusterrolebindings').map((b) => ({ b })),
    ...(a.namespace
      ? store.list('rbac.authorization.k8s.io/rolebindings', a.namespace).map((b) => ({ b, ns: a.namespace }))
      : []),
  ];
  for (const { b, ns } of bindings) {
    if (!((b.subjects ?? []) as Subject[]).some((s) => subjectMatches(s, user, ns))) continue;
    const ref = b.roleRef ?? {};
    const role =
      ref.kind === 'ClusterRole'
        ? store.get('rbac.authorization.k8s.io/clusterroles', undefined, ref.name)
        : store.get('rbac.authorization.k8s.io/roles', ns, ref.name);
    if (!role) {
      errors.push(
        `${ref.kind === 'ClusterRole' ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${ref.name}" not found`,
      );
      continue;
    }
    if (((role.rules ?? []) as Obj[]).some((r) => ruleAllows(r, a))) return { allowed: true, errors };
  }
  return { allowed: false, errors };
}
