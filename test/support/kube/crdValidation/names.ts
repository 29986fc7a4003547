/**
 * spec.names (and status.acceptedNames): DNS-1035 plural, singular, short names and categories;
 * kind and listKind may mix case; kind and listKind must differ (17 #130–#136). Conflicts with
 * other CRDs are not errors: the naming controller reports them in the status (crdNaming.ts).
 */
import { fieldErr, type FieldError } from '../errors';
import type { Obj } from '../types';
import { dns1035Errors } from './dnsNames';

export function validateNames(names: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const check = (field: string, value: unknown, mixedCase = false) => {
    if (typeof value !== 'string' || !value) return;
    const problems = dns1035Errors(mixedCase ? value.toLowerCase() : value);
    if (problems.length === 0) return;
    const msg = problems.join(',');
    errs.push(
      fieldErr.invalid(
        `${path}.${field}`,
        value,
        mixedCase ? `may have mixed case, but should otherwise match: ${msg}` : msg,
      ),
    );
  };
  check('plural', names.plural);
  check('singular', names.singular);
  check('kind', names.kind, true);
  check('listKind', names.listKind, true);
  ((names.shortNames ?? []) as string[]).forEach((s, i) => {
    const problems = dns1035Errors(s);
    if (problems.length) errs.push(fieldErr.invalid(`${path}.shortNames[${i}]`, s, problems.join(',')));
  });
  if (names.kind && names.kind === names.listKind) {
    errs.push(fieldErr.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  }
  ((names.categories ?? []) as string[]).forEach((c, i) => {
    const problems = dns1035Errors(c);
    if (problems.length) errs.push(fieldErr.invalid(`${path}.categories[${i}]`, c, problems.join(',')));
  });
  return errs;
}
