import type { Registry } from '../resources';
import { cronjobs, jobs } from './batch';
import { leases } from './coordination';
import { coreEvents, eventsV1 } from './events';
import { secrets } from './secrets';
import { configmaps, namespaces, nodes, serviceaccounts } from './core';

/** Every built-in kind the emulator serves. */
export function registerBuiltins(registry: Registry): void {
  for (const t of [
    namespaces,
    configmaps,
    serviceaccounts,
    nodes,
    cronjobs,
    jobs,
    leases,
    secrets,
    coreEvents,
    eventsV1,
  ])
    registry.add(t);
}
