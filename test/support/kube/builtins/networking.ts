import { fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import type { Obj } from '../types';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';
import { schemaChecks } from './schemaChecks';

export const ingresses: ResourceType = builtin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  subresources: ['status'],
  generation: true,
  ...schemaChecks('networking.k8s.io/v1', 'Ingress'),
  defaults(obj, ctx) {
    obj.spec = obj.spec ?? {};
    if (ctx.operation === 'create') obj.status = { loadBalancer: {} };
  },
  validate(obj, ctx) {
    schemaChecks('networking.k8s.io/v1', 'Ingress').validate!(obj, ctx);
    const errs: FieldError[] = validateSubdomainName('metadata.name', obj.metadata.name);
    ((obj.spec.rules ?? []) as Obj[]).forEach((rule, i) =>
      ((rule.http?.paths ?? []) as Obj[]).forEach((p, j) => {
        const at = `spec.rules[${i}].http.paths[${j}]`;
        if (!p.pathType) errs.push(fieldErr.required(`${at}.pathType`, 'pathType must be specified'));
      }),
    );
    return errs;
  },
});
