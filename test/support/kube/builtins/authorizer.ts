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
  if (!has(rule.verbs, a.verb)) return false;
  if (a.path !== undefined) {
    return ((rule.nonResourceURLs ?? []) as string[]).some(
      (u) => u === '*' || u === a.path || (u.endsWith('*') && a.path!.startsWith(u.slice(0, -1))),
    );
  }
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(rule.apiGroups, a.group) || !has(rule.resources, resource)) return false;
  return !rule.resourceNames?.length || (a.name !== undefined && rule.resourceNames.includes(a.name));
}

/** rbac's describeSubject: a ServiceAccount as "name/namespace". */
function describeSubject(s: Subject, bindingNs: string | undefined): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.name}/${s.namespace || bindingNs}"`;
  return `${s.kind} "${s.name}"`;
}

/**
 * RBAC over stored Roles/ClusterRoles and their bindings (ClusterRoleBindings first, then the
 * namespace's RoleBindings), with the reason the real authorizer gives an allow (12-auth #28:
 * `allowed by RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`) and the "role … not
 * found" errors it appends to a 403 (12-auth #27).
 */
export function rbacDecision(
  store: Store,
  user: User,
  a: Attributes,
): { allowed: boolean; reason?: string; errors: string[] } {
  const errors: string[] = [];
  const bindings: { b: Obj; ns?: string }[] = [
    ...store.list('rbac.authorization.k8s.io/clusterrolebindings').map((b) => ({ b })),
    ...(a.namespace && a.path === undefined
      ? store.list('rbac.authorization.k8s.io/rolebindings', a.namespace).map((b) => ({ b, ns: a.namespace }))
      : []),
  ];
  for (const { b, ns } of bindings) {
    const subject = ((b.subjects ?? []) as Subject[]).find((s) => subjectMatches(s, user, ns));
    if (!subject) continue;
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
    if (((role.rules ?? []) as Obj[]).some((r) => ruleAllows(r, a))) {
      const binding = ns
        ? `RoleBinding "${b.metadata.name}/${ns}"`
        : `ClusterRoleBinding "${b.metadata.name}"`;
      const reason = `allowed by ${binding} of ${ref.kind} "${ref.name}" to ${describeSubject(subject, ns)}`;
      return { allowed: true, reason, errors };
    }
  }
  return { allowed: false, errors };
}
