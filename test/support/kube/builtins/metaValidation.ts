import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import { asPrefix, isQualifiedName, isValidLabelValue } from './nameRules';

/**
 * ObjectMeta, labels, annotations and label selectors as apimachinery validates them. Maps are
 * walked in sorted key order (Go's is random; the recordings have one key per error).
 */

type NameRule = (name: string) => string[];

export function validateLabels(labels: unknown, path: string): FieldError[] {
  if (!isPlainObject(labels)) return [];
  const errs: FieldError[] = [];
  for (const k of Object.keys(labels).sort()) {
    errs.push(...isQualifiedName(k).map((m) => fieldErr.invalid(path, k, m)));
    errs.push(...isValidLabelValue(String(labels[k])).map((m) => fieldErr.invalid(path, labels[k], m)));
  }
  return errs;
}

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  if (!isPlainObject(annotations)) return [];
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of Object.keys(annotations).sort()) {
    // Annotation keys are qualified names in any case.
    errs.push(...isQualifiedName(k.toLowerCase()).map((m) => fieldErr.invalid(path, k, m)));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(annotations[k]));
  }
  if (size > TOTAL_ANNOTATION_SIZE) {
    errs.push({
      type: 'TooLong',
      field: path,
      detail: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE} bytes`,
    });
  }
  return errs;
}

/** ValidateObjectMeta of a create or update: names, namespace presence, labels, annotations. */
export function validateObjectMeta(meta: Obj, nameRule: NameRule, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    errs.push(
      ...nameRule(asPrefix(meta.generateName)).map((m) =>
        fieldErr.invalid('metadata.generateName', meta.generateName, m),
      ),
    );
  }
  if (!meta.name) errs.push(fieldErr.required('metadata.name', 'name or generateName is required'));
  else errs.push(...nameRule(meta.name).map((m) => fieldErr.invalid('metadata.name', meta.name, m)));
  if (namespaced && !meta.namespace) errs.push(fieldErr.required('metadata.namespace'));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences));
  ((meta.finalizers ?? []) as string[]).forEach((f) =>
    errs.push(...isQualifiedName(f).map((m) => fieldErr.invalid('metadata.finalizers', f, m))),
  );
  ((meta.finalizers ?? []) as string[]).forEach((f, i) => {
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      errs.push(
        fieldErr.invalid(
          `metadata.finalizers[${i}]`,
          f,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
    }
  });
  return errs;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** validateOwnerReference (its path is not indexed upstream either). */
function validateOwnerReferences(refs: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const at = 'metadata.ownerReferences';
  for (const r of (Array.isArray(refs) ? refs : []) as Obj[]) {
    const version = String(r.apiVersion ?? '')
      .split('/')
      .pop();
    if (!version)
      errs.push(fieldErr.invalid(`${at}.apiVersion`, r.apiVersion ?? '', 'version must not be empty'));
    if (!r.kind) errs.push(fieldErr.invalid(`${at}.kind`, r.kind ?? '', 'kind must not be empty'));
    if (!r.name) errs.push(fieldErr.invalid(`${at}.name`, r.name ?? '', 'name must not be empty'));
    if (!r.uid) errs.push(fieldErr.invalid(`${at}.uid`, r.uid ?? '', 'uid must not be empty'));
  }
  return errs;
}

/**
 * What the set-based operators (`In`, `NotIn`, `Exists`, `DoesNotExist`) require of a requirement's
 * `values`, as label and node selectors both check it; null for any other operator.
 */
export function setOperatorValueErrors(
  operator: unknown,
  values: unknown[],
  path: string,
): FieldError[] | null {
  switch (operator) {
    case 'In':
    case 'NotIn':
      return values.length === 0
        ? [fieldErr.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'")]
        : [];
    case 'Exists':
    case 'DoesNotExist':
      return values.length > 0
        ? [
            fieldErr.forbidden(
              `${path}.values`,
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          ]
        : [];
    default:
      return null;
  }
}

export function validateLabelSelector(sel: unknown, path: string): FieldError[] {
  if (!isPlainObject(sel)) return [];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  ((sel.matchExpressions ?? []) as Obj[]).forEach((r, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = (r.values ?? []) as string[];
    errs.push(
      ...(setOperatorValueErrors(r.operator, values, at) ?? [
        fieldErr.invalid(`${at}.operator`, r.operator ?? '', 'not a valid selector operator'),
      ]),
    );
    errs.push(...isQualifiedName(r.key ?? '').map((m) => fieldErr.invalid(`${at}.key`, r.key ?? '', m)));
    values.forEach((v, j) =>
      errs.push(...isValidLabelValue(v).map((m) => fieldErr.invalid(`${at}.values[${j}]`, v, m))),
    );
  });
  return errs;
}

const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** metav1.LabelSelectorAsSelector fails on an unknown operator (or bad In/NotIn values). */
export function selectorConverts(sel: Obj | undefined): boolean {
  return ((sel?.matchExpressions ?? []) as Obj[]).every(
    (r) =>
      OPERATORS.has(r.operator) &&
      (['In', 'NotIn'].includes(r.operator) ? (r.values ?? []).length > 0 : (r.values ?? []).length === 0),
  );
}

/**
 * labels.Selector.Matches for a selector built by LabelSelectorAsSelector: a nil selector selects
 * nothing, an empty one everything.
 */
export function selectorMatches(sel: Obj | undefined, labels: Record<string, string> | undefined): boolean {
  if (!isPlainObject(sel)) return false;
  const l = labels ?? {};
  const byLabels = Object.entries((sel.matchLabels ?? {}) as Record<string, string>).every(
    ([k, v]) => l[k] === v,
  );
  return (
    byLabels &&
    ((sel.matchExpressions ?? []) as Obj[]).every((r) => {
      const has = r.key in l;
      switch (r.operator) {
        case 'In':
          return has && (r.values as string[]).includes(l[r.key]!);
        case 'NotIn':
          return !has || !(r.values as string[]).includes(l[r.key]!);
        case 'Exists':
          return has;
        default:
          return !has;
      }
    })
  );
}

/** A selector that LabelSelectorAsSelector turns into labels.Everything() (nothing to match). */
export function selectorIsEmpty(sel: Obj | undefined): boolean {
  return (
    isPlainObject(sel) &&
    Object.keys(sel.matchLabels ?? {}).length === 0 &&
    ((sel.matchExpressions ?? []) as Obj[]).length === 0
  );
}
