import { fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import type { Obj } from '../types';
import { notMoreThan100Percent, validateIntOrPercent } from './apps';
import { builtin } from './common';
import { decoding } from './decoding';
import { goPointer, goStruct } from './goRender';
import { validateLabelSelector, validateObjectMeta } from './metaValidation';
import { isDns1123Subdomain } from './nameRules';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

/** ValidatePodDisruptionBudgetSpec (19 #111–#117). */
function validateSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    const rendered = goStruct('policy.PodDisruptionBudgetSpec', [
      ['MinAvailable', goPointer('intstr.IntOrString', spec.minAvailable)],
      ['Selector', goPointer('v1.LabelSelector', spec.selector)],
      ['MaxUnavailable', goPointer('intstr.IntOrString', spec.maxUnavailable)],
      [
        'UnhealthyPodEvictionPolicy',
        goPointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy),
      ],
    ]);
    errs.push(fieldErr.invalidRaw('spec', rendered, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable']) {
    if (spec[f] === undefined) continue;
    errs.push(...validateIntOrPercent(spec[f], `spec.${f}`), ...notMoreThan100Percent(spec[f], `spec.${f}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  if (
    spec.unhealthyPodEvictionPolicy !== undefined &&
    !EVICTION_POLICIES.includes(spec.unhealthyPodEvictionPolicy)
  ) {
    errs.push(
      fieldErr.notSupported(
        'spec.unhealthyPodEvictionPolicy',
        spec.unhealthyPodEvictionPolicy,
        EVICTION_POLICIES,
      ),
    );
  }
  return errs;
}

export const poddisruptionbudgets: ResourceType = builtin({
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  subresources: ['status'],
  generation: true,
  ...decoding('policy/v1', 'PodDisruptionBudget'),
  defaults(obj, ctx) {
    obj.spec = obj.spec ?? {};
    if (ctx.operation === 'create') {
      obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    }
  },
  validate: (obj) => [
    ...validateObjectMeta(obj.metadata, isDns1123Subdomain, true),
    ...validateSpec(obj.spec ?? {}),
  ],
});
