import type { Registry } from '../resources';
import { cronjobs, jobs } from './batch';
import { configmaps, namespaces, nodes, serviceaccounts } from './core';

/** Every built-in kind the emulator serves. */
export function registerBuiltins(registry: Registry): void {
  for (const t of [namespaces, configmaps, serviceaccounts, nodes, cronjobs, jobs]) registry.add(t);
}
