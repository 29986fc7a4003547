import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';

/** apimachinery's validation texts (k8s.io/apimachinery/pkg/util/validation). */
function regexError(msg: string, format: string, ...examples: string[]): string {
  const e = examples.map((x) => `'${x}', `).join(' or ');
  return `${msg} (e.g. ${e}regex used for validation is '${format}')`;
}

const maxLenError = (n: number) => `must be no more than ${n} characters`;

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** IsDNS1123Subdomain: the length and the form are separate messages. */
function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** IsQualifiedName: `[prefix/]name`, the prefix a DNS subdomain. */
function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(value)) {
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function labelsErrors(labels: unknown, path: string): FieldError[] {
  if (!isPlainObject(labels)) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldErr.invalid(path, k, m));
    for (const m of labelValueErrors(String(v))) errs.push(fieldErr.invalid(path, v, m));
  }
  return errs;
}

function annotationsErrors(annotations: unknown, path: string): FieldError[] {
  if (!isPlainObject(annotations)) return [];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    // Annotation keys are qualified names in any case.
    for (const m of qualifiedNameErrors(k.toLowerCase())) errs.push(fieldErr.invalid(path, k, m));
    size += k.length + String(v).length;
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({
      type: 'TooLong',
      field: path,
      detail: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  }
  return errs;
}

function ownerReferencesErrors(refs: unknown, path: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs as Obj[]) {
    const apiVersion = String(ref.apiVersion ?? '');
    const version = apiVersion.includes('/') ? apiVersion.split('/')[1]! : apiVersion;
    if (!version) errs.push(fieldErr.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref.kind) errs.push(fieldErr.invalid(`${path}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(fieldErr.invalid(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(fieldErr.invalid(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          fieldErr.invalidRaw(
            path,
            '[]v1.OwnerReference',
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

function finalizersErrors(finalizers: unknown, path: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const errs: FieldError[] = [];
  for (const f of finalizers as string[]) {
    for (const m of qualifiedNameErrors(f)) errs.push(fieldErr.invalid(path, f, m));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(
      fieldErr.invalidRaw(
        path,
        `[]string{${finalizers.map((f) => JSON.stringify(f)).join(', ')}}`,
        'finalizer orphan and foregroundDeletion cannot be both set',
      ),
    );
  }
  return errs;
}

/** ValidateObjectMetaAccessor (create): name, namespace, generation, labels, annotations, owners, finalizers. */
export function objectMetaErrors(meta: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!meta.name) errs.push(fieldErr.required('metadata.name', 'name or generateName is required'));
  else
    for (const m of dns1123SubdomainErrors(meta.name))
      errs.push(fieldErr.invalid('metadata.name', meta.name, m));
  if (namespaced && !meta.namespace) errs.push(fieldErr.required('metadata.namespace'));
  if (!namespaced && meta.namespace)
    errs.push(fieldErr.forbidden('metadata.namespace', 'not allowed on this type'));
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(fieldErr.invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...labelsErrors(meta.labels, 'metadata.labels'));
  errs.push(...annotationsErrors(meta.annotations, 'metadata.annotations'));
  errs.push(...ownerReferencesErrors(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...finalizersErrors(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

/**
 * ValidateObjectMetaAccessorUpdate: what an update may not change, then the new labels,
 * annotations and owners (the finalizers of a deleted object are checked by the write handler).
 */
export function objectMetaUpdateErrors(meta: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(fieldErr.invalid('metadata.generation', meta.generation ?? 0, 'must not be decremented'));
  }
  errs.push(...labelsErrors(meta.labels, 'metadata.labels'));
  errs.push(...annotationsErrors(meta.annotations, 'metadata.annotations'));
  errs.push(...ownerReferencesErrors(meta.ownerReferences, 'metadata.ownerReferences'));
  return errs;
}

/** The custom resource strategy's warnings: every new finalizer without a domain (18 #59). */
export function finalizerWarnings(meta: Obj, old?: Obj): string[] {
  const before = new Set<string>(Array.isArray(old?.finalizers) ? old.finalizers : []);
  const added = [...new Set<string>(Array.isArray(meta.finalizers) ? meta.finalizers : [])]
    .filter((f) => !before.has(f))
    .sort();
  const out: string[] = [];
  for (const f of added) {
    for (const m of qualifiedNameErrors(f)) out.push(`metadata.finalizers: ${JSON.stringify(f)}: ${m}`);
    if (!f.includes('/')) {
      out.push(
        `metadata.finalizers: ${JSON.stringify(f)}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  return out;
}
