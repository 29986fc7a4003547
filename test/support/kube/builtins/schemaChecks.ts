import { validateKubernetesObject } from '../../openapi/kubernetesSchemas';
import { badRequest } from '../errors';
import type { ResourceType } from '../resources';
import { isPlainObject, type Obj } from '../types';

const UNKNOWN_FIELD = /^(\S+): unknown field "(.+)"$/;

/**
 * Schema checks of a built-in kind against the real server's OpenAPI (test/support/openapi:
 * the recorded documents, or kubernetes-models for the kinds they lack): unknown fields are pruned
 * (and reported, so fieldValidation can warn or refuse), any other mismatch is refused as the
 * server's decoder refuses a body of the wrong shape (400 "cannot be handled as a Kind").
 */
export function schemaChecks(apiVersion: string, kind: string): Pick<ResourceType, 'prune' | 'validate'> {
  return {
    prune(obj) {
      const pruned: string[] = [];
      for (const error of validateKubernetesObject({ ...obj, apiVersion, kind }).errors) {
        const m = UNKNOWN_FIELD.exec(error);
        if (!m) continue;
        const at = m[1] === '(root)' ? [] : m[1]!.split('/').slice(1);
        const parent = at.reduce<unknown>((o, k) => (o as Obj | undefined)?.[k], obj);
        if (isPlainObject(parent) || Array.isArray(parent)) delete (parent as Obj)[m[2]!];
        pruned.push(
          [...at.map((k) => (/^\d+$/.test(k) ? `[${k}]` : k)), m[2]].join('.').replace(/\.\[/g, '['),
        );
      }
      return pruned.sort();
    },
    validate(obj) {
      const errors = validateKubernetesObject({ ...obj, apiVersion, kind }).errors;
      if (errors.length) {
        throw badRequest(
          `${kind} in version "${apiVersion.split('/').pop()}" cannot be handled as a ${kind}: ${errors.join('; ')}`,
        );
      }
      return [];
    },
  };
}
