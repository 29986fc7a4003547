import { selectorMatches } from '../builtins/metaValidation';
import type { Store } from '../store';
import { deepEqual, type Obj } from '../types';

const CLUSTER_ROLES = 'rbac.authorization.k8s.io/clusterroles';

/**
 * The ClusterRole aggregation controller of kube-controller-manager: a ClusterRole with an
 * aggregationRule gets the rules of every other ClusterRole its selectors match, in name order,
 * each rule once (19 #199–#201). It writes only when the rules differ (nil and empty are equal),
 * so it overwrites any rules written to an aggregated role by hand. Returns whether it wrote.
 */
export function aggregateClusterRoles(store: Store): boolean {
  const roles = store.list(CLUSTER_ROLES);
  let wrote = false;
  for (const role of roles) {
    const selectors = (role.aggregationRule?.clusterRoleSelectors ?? undefined) as Obj[] | undefined;
    if (!selectors) continue;
    const rules: Obj[] = [];
    for (const selector of selectors) {
      for (const other of roles) {
        if (other.metadata.name === role.metadata.name) continue;
        if (!selectorMatches(selector, other.metadata.labels)) continue;
        for (const rule of (other.rules ?? []) as Obj[]) {
          if (!rules.some((r) => deepEqual(r, rule))) rules.push(rule);
        }
      }
    }
    if (deepEqual(rules, role.rules ?? [])) continue;
    store.put(CLUSTER_ROLES, { ...role, rules }, 'MODIFIED');
    wrote = true;
  }
  return wrote;
}

/**
 * The controller as a write hook: it runs only when some ClusterRole changed since its last pass
 * (a look at names and resourceVersions, without copying): a pass over every ClusterRole after
 * every write of anything would cost the emulator about 2 ms per write.
 */
export function clusterRoleAggregationHook(store: Store): () => boolean {
  let settled = '';
  return () => {
    let signature = '';
    for (const role of store.peek(CLUSTER_ROLES))
      signature += `${role.metadata.name}@${role.metadata.resourceVersion};`;
    if (signature === settled) return false;
    // Its own writes change the signature: the next pass looks again (view aggregates into edit).
    settled = signature;
    return aggregateClusterRoles(store);
  };
}
