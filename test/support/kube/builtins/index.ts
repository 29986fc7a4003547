import type { Registry } from '../resources';
import { cronjobs, jobs } from './batch';
import { leases } from './coordination';
import { configmaps, namespaces, nodes, serviceaccounts } from './core';
import { coreEvents, eventsV1 } from './events';
import { pods } from './pods';
import { clusterRoleBindings, clusterRoles, reviewTypes, roleBindings, roles } from './rbac';
import { secrets } from './secrets';

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
  ];
  for (const t of all) registry.add(t);
}
