import { fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';
import { schemaChecks } from './schemaChecks';

export const poddisruptionbudgets: ResourceType = builtin({
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  subresources: ['status'],
  generation: true,
  ...schemaChecks('policy/v1', 'PodDisruptionBudget'),
  defaults(obj, ctx) {
    obj.spec = obj.spec ?? {};
    if (ctx.operation === 'create') {
      obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    }
  },
  validate(obj, ctx) {
    schemaChecks('policy/v1', 'PodDisruptionBudget').validate!(obj, ctx);
    const errs: FieldError[] = validateSubdomainName('metadata.name', obj.metadata.name);
    if (obj.spec.minAvailable !== undefined && obj.spec.maxUnavailable !== undefined) {
      errs.push(fieldErr.invalid('spec', obj.spec, 'minAvailable and maxUnavailable cannot be both set'));
    }
    return errs;
  },
});
