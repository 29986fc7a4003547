import { aggregateMessage, type Attributes } from '../auth';
import type { User } from '../handlers/context';
import type { Store } from '../store';
import type { Obj } from '../types';

/**
 * The RBAC authorizer of kube-apiserver v1.32 over the stored Roles, ClusterRoles and bindings,
 * written after plugin/pkg/auth/authorizer/rbac/rbac.go, pkg/registry/rbac/validation/rule.go and
 * pkg/apis/rbac/v1/evaluation_helpers.go: the same matching, visiting order and texts.
 */

const RBAC = 'rbac.authorization.k8s.io';

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

/** A rule that applies to a user and where it came from (the describer of an allow reason). */
interface Visit {
  rule?: Obj;
  source?: string;
  error?: string;
}

const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);

function verbMatches(rule: Obj, verb: string): boolean {
  return list(rule.verbs).some((v) => v === '*' || v === verb);
}

function apiGroupMatches(rule: Obj, group: string): boolean {
  return list(rule.apiGroups).some((g) => g === '*' || g === group);
}

/** '*', the exact `resource[/subresource]`, or '*' slash the subresource for a subresource request. */
function resourceMatches(rule: Obj, combined: string, subresource: string | undefined): boolean {
  return list(rule.resources).some(
    (r) =>
      r === '*' ||
      r === combined ||
      (!!subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)),
  );
}

/** No resourceNames: any name (and none, as a list has); else the request must name one of them. */
function resourceNameMatches(rule: Obj, name: string | undefined): boolean {
  const names = list(rule.resourceNames);
  return names.length === 0 || names.includes(name ?? '');
}

/** '*', the exact path, or a prefix ending in '*' (every trailing '*' trimmed). */
function nonResourceURLMatches(rule: Obj, path: string): boolean {
  return list(rule.nonResourceURLs).some(
    (u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))),
  );
}

export function ruleAllows(rule: Obj, a: Attributes): boolean {
  if (a.path !== undefined) return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    verbMatches(rule, a.verb) &&
    apiGroupMatches(rule, a.group) &&
    resourceMatches(rule, combined, a.subresource) &&
    resourceNameMatches(rule, a.name)
  );
}

/** appliesToUser: a ServiceAccount subject without a namespace means the binding's own. */
function appliesToUser(user: User, s: Subject, bindingNs: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.name === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNs;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** describeSubject: a ServiceAccount as "name/namespace", Go's %q quoting. */
function describeSubject(s: Subject, bindingNs: string): string {
  const name = s.kind === 'ServiceAccount' ? `${s.name}/${s.namespace || bindingNs}` : s.name;
  return `${s.kind} ${JSON.stringify(name)}`;
}

/** GetRoleReferenceRules: the referenced role's rules, or the lister's NotFound text. */
function roleReferenceRules(store: Store, ref: Obj, bindingNs: string): Obj[] | string {
  if (ref.kind === 'Role') {
    const role = store.get(`${RBAC}/roles`, bindingNs, ref.name);
    return role
      ? ((role.rules ?? []) as Obj[])
      : `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`;
  }
  if (ref.kind === 'ClusterRole') {
    const role = store.get(`${RBAC}/clusterroles`, undefined, ref.name);
    return role
      ? ((role.rules ?? []) as Obj[])
      : `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`;
  }
  return `unsupported role reference kind: ${JSON.stringify(ref.kind ?? '')}`;
}

/**
 * VisitRulesFor: the rules of every ClusterRoleBinding that names the user, then, for a namespace,
 * of every RoleBinding there (a RoleBinding to a ClusterRole grants its rules in that namespace
 * only). Stops when `visit` returns false. The real listers hand bindings out in no fixed order
 * (12-auth #32 is recorded "unordered"); the emulator's are in name order.
 */
function visitRulesFor(store: Store, user: User, namespace: string, visit: (v: Visit) => boolean): void {
  const sources: { binding: Obj; ns: string }[] = store
    .list(`${RBAC}/clusterrolebindings`)
    .map((binding) => ({ binding, ns: '' }));
  if (namespace) {
    sources.push(
      ...store.list(`${RBAC}/rolebindings`, namespace).map((binding) => ({ binding, ns: namespace })),
    );
  }
  for (const { binding, ns } of sources) {
    const subject = ((binding.subjects ?? []) as Subject[]).find((s) => appliesToUser(user, s, ns));
    if (!subject) continue;
    const ref = (binding.roleRef ?? {}) as Obj;
    const rules = roleReferenceRules(store, ref, ns);
    if (typeof rules === 'string') {
      if (!visit({ error: rules })) return;
      continue;
    }
    const bindingName = ns
      ? `RoleBinding ${JSON.stringify(`${binding.metadata.name}/${ns}`)}`
      : `ClusterRoleBinding ${JSON.stringify(binding.metadata.name)}`;
    const source = `${bindingName} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(subject, ns)}`;
    for (const rule of rules) if (!visit({ rule, source })) return;
  }
}

/**
 * RBACAuthorizer.Authorize: allowed with `RBAC: allowed by <source>` at the first rule that
 * allows (12-auth #28); otherwise no opinion, with `RBAC: <aggregated resolution errors>` as the
 * reason when bindings pointed at missing roles (12-auth #27, #31).
 */
export function rbacAuthorize(store: Store, user: User, a: Attributes): { allowed: boolean; reason: string } {
  const errors: string[] = [];
  let reason = '';
  // Non-resource requests have no namespace: only ClusterRoleBindings count.
  visitRulesFor(store, user, a.path === undefined ? (a.namespace ?? '') : '', (v) => {
    if (v.rule && ruleAllows(v.rule, a)) {
      reason = `RBAC: allowed by ${v.source}`;
      return false;
    }
    if (v.error) errors.push(v.error);
    return true;
  });
  if (reason) return { allowed: true, reason };
  return { allowed: false, reason: errors.length ? `RBAC: ${aggregateMessage(errors)}` : '' };
}

/**
 * RBACAuthorizer.RulesFor, as SelfSubjectRulesReview shows it (12-auth #32): every rule that
 * applies in the namespace, those with resources as resource rules and those with non-resource
 * URLs as non-resource rules, and the resolution errors aggregated.
 */
export function rbacRulesFor(
  store: Store,
  user: User,
  namespace: string,
): { resourceRules: Obj[]; nonResourceRules: Obj[]; error: string } {
  const resourceRules: Obj[] = [];
  const nonResourceRules: Obj[] = [];
  const errors: string[] = [];
  visitRulesFor(store, user, namespace, (v) => {
    const rule = v.rule;
    if (rule && list(rule.resources).length > 0) {
      const info: Obj = { verbs: rule.verbs };
      if (list(rule.apiGroups).length) info.apiGroups = rule.apiGroups;
      info.resources = rule.resources;
      if (list(rule.resourceNames).length) info.resourceNames = rule.resourceNames;
      resourceRules.push(info);
    }
    if (rule && list(rule.nonResourceURLs).length > 0) {
      nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
    }
    if (v.error) errors.push(v.error);
    return true;
  });
  return { resourceRules, nonResourceRules, error: aggregateMessage(errors) };
}
