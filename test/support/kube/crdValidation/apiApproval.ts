/**
 * CRDs in the protected groups (k8s.io, kubernetes.io and their subdomains) need the
 * api-approved.kubernetes.io annotation: a URL of the approval, or a reason starting with
 * "unapproved" (17 #153–#155). The same state becomes the KubernetesAPIApprovalPolicyConformant
 * condition (17 #180).
 */
import { fieldErr, type FieldError } from '../errors';
import type { Obj } from '../types';

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const ENHANCEMENT = 'see https://github.com/kubernetes/enhancements/pull/1111';

export function isProtectedGroup(group: string): boolean {
  return ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));
}

export type ApprovalState = 'Missing' | 'Bypassed' | 'Approved' | 'Invalid';

export function approvalState(annotations: Obj | undefined): { state: ApprovalState; reason: string } {
  const value = String(annotations?.[APPROVAL_ANNOTATION] ?? '');
  if (!value) {
    return {
      state: 'Missing',
      reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", ${ENHANCEMENT}`,
    };
  }
  if (value.startsWith('unapproved'))
    return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]+/.test(value))
    return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${ENHANCEMENT}`,
  };
}

export function validateApiApproval(crd: Obj, old: Obj | undefined): FieldError[] {
  if (!isProtectedGroup(crd.spec?.group ?? '')) return [];
  const now = approvalState(crd.metadata?.annotations);
  if (old && approvalState(old.metadata?.annotations).state === now.state) return [];
  const field = `metadata.annotations[${APPROVAL_ANNOTATION}]`;
  if (now.state === 'Missing') return [fieldErr.required(field, now.reason)];
  if (now.state === 'Invalid')
    return [fieldErr.invalid(field, crd.metadata.annotations[APPROVAL_ANNOTATION], now.reason)];
  return [];
}
