import { createHash } from 'node:crypto';
import { STANDARD_VERBS, type ResourceType } from '../resources';

/** storageVersionHash: the first 8 bytes of sha256("group/version/kind"), base64 (verified against 01 #8). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

/** A built-in kind with the usual verbs; overrides fill in the behaviour. */
export function builtin(
  base: Pick<ResourceType, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'> & Partial<ResourceType>,
): ResourceType {
  return {
    listKind: `${base.kind}List`,
    singular: base.kind.toLowerCase(),
    subresources: [],
    verbs: STANDARD_VERBS,
    custom: false,
    generation: false,
    storageVersionHash: storageVersionHash(base.group, base.version, base.kind),
    ...base,
  };
}
