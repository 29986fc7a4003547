/**
 * The apiextensions naming and API-approval controllers: which of a CRD's names it may have, given
 * the names other CRDs of its group already hold, and the conditions that say so. A name already in
 * use is no 422: the CRD is stored, NamesAccepted is False with the conflict named (the last one
 * checked wins: `"GadgetList" is already in use`, 17 #175), Established stays False and the kind is
 * not served. Short names of built-in resources do not count (17 #167).
 */
import { approvalState, isProtectedGroup } from './crdValidation/apiApproval';
import type { Obj } from './types';

export interface Condition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface Naming {
  acceptedNames: Obj;
  namesAccepted: Condition;
  /** Whether the kind may be served (Established True). */
  accepted: boolean;
}

/** `others`: the other CRDs of the same group, as stored (their accepted names count). */
export function acceptNames(crd: Obj, others: Obj[], now: string): Naming {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    const n = (o.status?.acceptedNames ?? {}) as Obj;
    for (const r of [n.plural, n.singular, ...((n.shortNames ?? []) as string[])]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) kinds.add(k);
  }
  const requested = crd.spec.names as Obj;
  const current = (crd.status?.acceptedNames ?? {}) as Obj;
  const accepted: Obj = { ...current };
  let conflict: { reason: string; message: string } | undefined;
  const fresh = (wanted: string | undefined, had: string | undefined, used: Set<string>) =>
    wanted === had || wanted === undefined || !used.has(wanted);
  const inUse = (name: string) => `${JSON.stringify(name)} is already in use`;
  if (fresh(requested.plural, current.plural, resources)) accepted.plural = requested.plural;
  else conflict = { reason: 'PluralConflict', message: inUse(requested.plural) };
  if (fresh(requested.singular, current.singular, resources)) accepted.singular = requested.singular;
  else conflict = { reason: 'SingularConflict', message: inUse(requested.singular) };
  const shortNames = (requested.shortNames ?? []) as string[];
  const taken = shortNames.filter(
    (s) => !((current.shortNames ?? []) as string[]).includes(s) && resources.has(s),
  );
  if (taken.length) {
    const messages = taken.map(inUse);
    conflict = {
      reason: 'ShortNamesConflict',
      message: messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`,
    };
  } else if (shortNames.length) accepted.shortNames = shortNames;
  if (fresh(requested.kind, current.kind, kinds)) accepted.kind = requested.kind;
  else conflict = { reason: 'KindConflict', message: inUse(requested.kind) };
  if (fresh(requested.listKind, current.listKind, kinds)) accepted.listKind = requested.listKind;
  else conflict = { reason: 'ListKindConflict', message: inUse(requested.listKind) };
  if (requested.categories) accepted.categories = requested.categories;
  const namesAccepted: Condition = conflict
    ? { type: 'NamesAccepted', status: 'False', lastTransitionTime: now, ...conflict }
    : {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      };
  return { acceptedNames: ordered(accepted), namesAccepted, accepted: !conflict };
}

/** acceptedNames in the Go struct's field order, `kind` always present. */
function ordered(n: Obj): Obj {
  const out: Obj = { plural: n.plural ?? '' };
  if (n.singular) out.singular = n.singular;
  if (n.shortNames?.length) out.shortNames = n.shortNames;
  out.kind = n.kind ?? '';
  if (n.listKind) out.listKind = n.listKind;
  if (n.categories?.length) out.categories = n.categories;
  return out;
}

export function establishedCondition(
  state: 'installing' | 'established' | 'notAccepted',
  now: string,
): Condition {
  if (state === 'notAccepted') {
    return {
      type: 'Established',
      status: 'False',
      lastTransitionTime: now,
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    };
  }
  return {
    type: 'Established',
    status: state === 'established' ? 'True' : 'False',
    lastTransitionTime: now,
    reason: state === 'established' ? 'InitialNamesAccepted' : 'Installing',
    message: 'the initial names have been accepted',
  };
}

const APPROVAL_REASONS = {
  Approved: 'ApprovedAnnotation',
  Bypassed: 'UnapprovedAnnotation',
  Missing: 'MissingAnnotation',
  Invalid: 'InvalidAnnotation',
};

/** KubernetesAPIApprovalPolicyConformant, for CRDs of the protected groups only (17 #180). */
export function approvalCondition(crd: Obj, now: string): Condition | undefined {
  if (!isProtectedGroup(crd.spec.group)) return undefined;
  const { state, reason } = approvalState(crd.metadata.annotations);
  return {
    type: 'KubernetesAPIApprovalPolicyConformant',
    status: state === 'Approved' ? 'True' : 'False',
    lastTransitionTime: now,
    reason: APPROVAL_REASONS[state],
    message: reason,
  };
}
