import type { Registry } from '../resources';
import { deployments, statefulsets } from './apps';
import { cronjobs, jobs } from './batch';
import { leases } from './coordination';
import { ingresses } from './networking';
import { poddisruptionbudgets } from './policy';
import { configmaps, namespaces, nodes, serviceaccounts } from './core';
import { coreEvents, eventsV1 } from './events';
import { pods } from './pods';
import { clusterRoleBindings, clusterRoles, reviewTypes, roleBindings, roles } from './rbac';
import { secrets } from './secrets';
import { persistentvolumeclaims, services } from './services';

/** Every built-in kind the emulator serves (or lists and refuses, like the review APIs). */
export function registerBuiltins(registry: Registry): void {
  const all = [
    namespaces,
    configmaps,
    serviceaccounts,
    nodes,
    pods,
    secrets,
    coreEvents,
    cronjobs,
    jobs,
    leases,
    eventsV1,
    roles,
    roleBindings,
    clusterRoles,
    clusterRoleBindings,
    ...reviewTypes,
    // What the Helm chart installs (test/packaging/helmUpgrade.test.ts).
    services,
    persistentvolumeclaims,
    deployments,
    statefulsets,
    poddisruptionbudgets,
    ingresses,
  ];
  for (const t of all) registry.add(t);
}
