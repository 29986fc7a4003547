import { ApiError, fieldErr, type FieldError } from '../errors';
import { patchDecodeError, patchedJson } from '../handlers/patchErrors';
import type { ResourceType } from '../resources';
import { builtin } from './common';
import { decoding } from './decoding';
import { validateObjectMeta } from './metaValidation';
import { isDns1123Subdomain } from './nameRules';
import { parseMicroTime } from './microTime';

const PREFIX = 'Lease in version "v1" cannot be handled as a Lease';

/** coordination.k8s.io/v1 Lease: MicroTime fields and the 422s of 10-lease #15. */
export const leases: ResourceType = builtin({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  ...decoding('coordination.k8s.io/v1', 'Lease'),
  defaults(obj, ctx) {
    const spec = obj.spec ?? {};
    const patched = ctx.viaPatch && ctx.old ? patchedJson(ctx.old, obj, false) : undefined;
    // CoordinatedLeaderElection is off: its fields are dropped without a word (19 #174).
    delete spec.strategy;
    delete spec.preferredHolder;
    for (const f of ['acquireTime', 'renewTime']) {
      if (spec[f] === undefined || spec[f] === null) continue;
      try {
        spec[f] = parseMicroTime(spec[f], PREFIX);
      } catch (e) {
        // A bad time in a PATCH is a 422 quoting the whole patched object, managedFields included (10 #10).
        if (patched === undefined || !(e instanceof ApiError)) throw e;
        throw patchDecodeError(patched, e.message.slice(PREFIX.length + 2));
      }
    }
  },
  validate(obj) {
    const errs: FieldError[] = validateObjectMeta(obj.metadata, isDns1123Subdomain, true);
    const spec = obj.spec ?? {};
    if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
      errs.push(
        fieldErr.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'),
      );
    }
    if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
      errs.push(
        fieldErr.invalid(
          'spec.leaseTransitions',
          spec.leaseTransitions,
          'must be greater than or equal to 0',
        ),
      );
    }
    return errs;
  },
});
