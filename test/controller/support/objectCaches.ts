import type { KubernetesObject, ObjectCache } from '@kubernetes/client-node';

/** A cache holding `objects`, read as the controller reads an informer's. */
export function cacheOf<T extends KubernetesObject>(objects: T[]): ObjectCache<T> {
  return {
    get: (name, namespace) =>
      objects.find((o) => o.metadata?.name === name && o.metadata?.namespace === namespace),
    list: (namespace) =>
      objects.filter((o) => namespace === undefined || o.metadata?.namespace === namespace),
  };
}
