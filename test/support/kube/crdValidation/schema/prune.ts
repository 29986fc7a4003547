/**
 * Structural pruning as the server does it: fields a schema does not declare go, unless the schema
 * preserves unknown fields; an embedded resource keeps apiVersion, kind and metadata. Defaults must
 * survive it unchanged (17 #41).
 */
import { isPlainObject, type Obj } from '../../types';

export function pruneLikeServer(value: unknown, s: Obj | undefined, isResource: boolean): void {
  if (!s) return;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (Array.isArray(value)) {
    if (isPlainObject(s.items)) {
      const items = s.items;
      value.forEach((v) => pruneLikeServer(v, items, items['x-kubernetes-embedded-resource'] === true));
    }
    return;
  }
  if (!isPlainObject(value)) return;
  for (const k of Object.keys(value)) {
    if (isResource && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const prop = (s.properties ?? {})[k] as Obj | undefined;
    if (prop) pruneLikeServer(value[k], prop, prop['x-kubernetes-embedded-resource'] === true);
    else if (isPlainObject(s.additionalProperties)) {
      const ap = s.additionalProperties;
      pruneLikeServer(value[k], ap, ap['x-kubernetes-embedded-resource'] === true);
    } else if (s.additionalProperties !== true && !preserve) delete value[k];
  }
}
