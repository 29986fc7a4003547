import Ajv from 'ajv';
import { withKubernetesFormats } from './kubernetesSchemas';
import type { Loose } from './loose';

/**
 * The rules a kube-apiserver v1.32 enforces on a CustomResourceDefinition beyond its OpenAPI type:
 * the ones its 422 named for an invalid CRD (01-crd-lifecycle, exchange 3) plus the structural-schema
 * rules of the apiextensions docs. Returns one line per problem, empty when the CRD would be accepted.
 */

type Node = Record<string, Loose>;

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const CAMEL_CASE_KIND = /^[A-Z][A-Za-z0-9]*$/;
// The server parses a column's path loosely (17 #122, #124) but wants the leading dot, no template braces (#123, #125).
const SIMPLE_JSON_PATH = /^\.[^{}]+$/;
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const LIST_TYPES = ['atomic', 'set', 'map'];
// Look-arounds and back-references are not RE2 (the API server's regex engine).
const NOT_RE2 = /\(\?[=!<]|\\[1-9]/;
const INT_OR_STRING_ANY_OF = JSON.stringify([{ type: 'integer' }, { type: 'string' }]);

export function crdProblems(crd: Node): string[] {
  const problems: string[] = [];
  const { group, names, versions } = crd.spec ?? {};
  if (crd.metadata?.name !== `${names?.plural}.${group}`)
    problems.push('metadata.name: must be spec.names.plural+"."+spec.group');
  for (const field of ['plural', 'singular'] as const) {
    if (!DNS1035_LABEL.test(names?.[field] ?? ''))
      problems.push(`spec.names.${field}: must be a DNS-1035 label`);
  }
  for (const shortName of names?.shortNames ?? []) {
    if (!DNS1035_LABEL.test(shortName))
      problems.push(`spec.names.shortNames: ${shortName} must be a DNS-1035 label`);
  }
  if (!CAMEL_CASE_KIND.test(names?.kind ?? ''))
    problems.push('spec.names.kind: must be CamelCase, starting upper case');
  if (names?.listKind !== `${names?.kind}List`) problems.push('spec.names.listKind: must be kind+"List"');
  if ((versions ?? []).filter((version: Node) => version.storage).length !== 1) {
    problems.push('spec.versions: exactly one version must be the storage version');
  }
  (versions ?? []).forEach((version: Node, index: number) => {
    const at = `spec.versions[${index}]`;
    (version.additionalPrinterColumns ?? []).forEach((column: Node, columnIndex: number) => {
      if (!SIMPLE_JSON_PATH.test(column.jsonPath ?? '')) {
        problems.push(
          `${at}.additionalPrinterColumns[${columnIndex}].JSONPath: must be a simple json path starting with .`,
        );
      }
      if (!['integer', 'number', 'string', 'boolean', 'date'].includes(column.type)) {
        problems.push(`${at}.additionalPrinterColumns[${columnIndex}].type: unsupported`);
      }
      if (column.format !== undefined && !COLUMN_FORMATS.includes(column.format)) {
        problems.push(`${at}.additionalPrinterColumns[${columnIndex}].format: unsupported`);
      }
    });
    const schema = version.schema?.openAPIV3Schema;
    if (!schema) {
      problems.push(`${at}.schema.openAPIV3Schema: required`);
      return;
    }
    if (schema.type !== 'object') problems.push(`${at}.schema.openAPIV3Schema.type: must be object`);
    problems.push(...rootMetadataProblems(schema.properties?.metadata, `${at}.schema.openAPIV3Schema`));
    checkNode(schema, `${at}.schema.openAPIV3Schema`, problems, false);
  });
  return problems;
}

const ROOT_METADATA_FIELDS = ['name', 'generateName'];

/**
 * The root `metadata` (17-crd-validation #2–#13, #47): `type: object`, with at most properties
 * `name` and `generateName` (whatever they hold but a default); anything else on it, even a
 * description, is refused.
 */
function rootMetadataProblems(metadata: Node | undefined, at: string): string[] {
  if (metadata === undefined) return [];
  const path = `${at}.properties[metadata]`;
  const problems: string[] = [];
  if (metadata.type !== 'object') problems.push(`${path}.type: must be object`);
  if (metadata.default !== undefined) problems.push(`${path}.default: must not be set in top-level metadata`);
  const properties = (metadata.properties ?? {}) as Record<string, Node>;
  for (const [name, child] of Object.entries(properties)) {
    if (child.default !== undefined)
      problems.push(`${path}.properties[${name}].default: must not be set in top-level metadata`);
  }
  const others = Object.keys(metadata).filter((key) => !['type', 'default', 'properties'].includes(key));
  if (others.length > 0 || Object.keys(properties).some((name) => !ROOT_METADATA_FIELDS.includes(name))) {
    problems.push(`${path}: must not specify anything other than name and generateName`);
  }
  return problems;
}

function checkNode(node: Node, path: string, problems: string[], insideAnyOf: boolean): void {
  if (node['x-kubernetes-preserve-unknown-fields'])
    problems.push(`${path}: x-kubernetes-preserve-unknown-fields is not wanted`);
  for (const keyword of [
    'oneOf',
    'allOf',
    'not',
    '$ref',
    'nullable',
    'additionalItems',
    'patternProperties',
    'dependencies',
  ]) {
    if (node[keyword] !== undefined) problems.push(`${path}.${keyword}: not allowed here`);
  }
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  if (node.anyOf !== undefined && !(intOrString && JSON.stringify(node.anyOf) === INT_OR_STRING_ANY_OF)) {
    problems.push(`${path}.anyOf: only the int-or-string form is used`);
  }
  if (!insideAnyOf && !intOrString && !node.type) {
    problems.push(`${path}.type: Required value: must not be empty for specified object fields`);
  }
  if (node.properties && node.additionalProperties !== undefined) {
    problems.push(`${path}.additionalProperties: must not be used together with properties`);
  }
  if (node['x-kubernetes-preserve-unknown-fields'] === false) {
    problems.push(`${path}.x-kubernetes-preserve-unknown-fields: must be true or undefined`);
  }
  if (node.uniqueItems === true) problems.push(`${path}.uniqueItems: must be false or undefined`);
  if (node.type === 'null') problems.push(`${path}.type: null is not a type here`);
  if (node.type === 'array' && node.items === undefined) problems.push(`${path}.items: must be specified`);
  if (typeof node.pattern === 'string') {
    if (NOT_RE2.test(node.pattern)) problems.push(`${path}.pattern: not RE2 syntax`);
    try {
      new RegExp(node.pattern);
    } catch {
      problems.push(`${path}.pattern: not a regular expression`);
    }
  }
  if (node.default !== undefined) {
    // Defaults are validated with their formats, and may not hold fields the schema does not declare.
    const engine = withKubernetesFormats(new Ajv({ strict: false, validateFormats: true }));
    if (!engine.validate(closed(withoutDefaults(node)), node.default)) {
      problems.push(`${path}.default: does not match its own schema`);
    }
  }
  problems.push(...listProblems(node, path));
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, Node>)) {
    checkNode(child, `${path}.properties[${name}]`, problems, false);
  }
  if (node.items) checkNode(node.items, `${path}.items`, problems, false);
  (node.anyOf ?? []).forEach((branch: Node, index: number) =>
    checkNode(branch, `${path}.anyOf[${index}]`, problems, true),
  );
}

/** The list extensions as 17-crd-validation #58–#71 show them refused or accepted. */
function listProblems(node: Node, path: string): string[] {
  const problems: string[] = [];
  const listType = node['x-kubernetes-list-type'];
  const keys: string[] | undefined = node['x-kubernetes-list-map-keys'];
  if (listType !== undefined && !LIST_TYPES.includes(listType))
    problems.push(`${path}.x-kubernetes-list-type: unsupported`);
  if (listType !== undefined && node.type !== 'array')
    problems.push(`${path}.x-kubernetes-list-type: only on arrays`);
  if (keys !== undefined && listType !== 'map')
    problems.push(`${path}.x-kubernetes-list-map-keys: only with list-type map`);
  const item = node.items ?? {};
  if (listType === 'map') {
    if (!keys?.length) problems.push(`${path}.x-kubernetes-list-map-keys: required for list-type map`);
    if (item.type !== 'object') problems.push(`${path}.items.type: a map list holds objects`);
    for (const key of keys ?? []) {
      const field = item.properties?.[key];
      if (!field || !['string', 'integer', 'number', 'boolean'].includes(field.type) || field.nullable) {
        problems.push(`${path}.x-kubernetes-list-map-keys: ${key} must be a scalar, non-nullable property`);
      } else if (!(item.required ?? []).includes(key) && field.default === undefined) {
        problems.push(`${path}: map key ${key} must be required or defaulted`);
      }
    }
  }
  if (listType === 'set' && item.type === 'object' && item['x-kubernetes-map-type'] !== 'atomic') {
    problems.push(`${path}: a set holds scalars or atomic objects`);
  }
  return problems;
}

/** A schema that refuses what it does not declare (the server prunes a default, then compares). */
function closed(node: Node): Node {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== 'object') return node;
  const out: Node = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Node).map(([name, child]) => [name, closed(child)]))
        : closed(value),
    ]),
  );
  if (
    out.properties &&
    out.additionalProperties === undefined &&
    !out['x-kubernetes-preserve-unknown-fields']
  ) {
    out.additionalProperties = false;
  }
  return out;
}

function withoutDefaults(node: Node): Node {
  const { default: _default, ...rest } = node;
  return rest;
}

/** Every property of the schema (not array items) that has no description, as paths. */
export function undescribedFields(schema: Node, path = ''): string[] {
  const missing: string[] = [];
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Node>)) {
    const childPath = `${path}.${name}`;
    // The API server describes the root metadata (ObjectMeta) and refuses a description there.
    if (childPath === '.metadata') continue;
    if (typeof child.description !== 'string' || child.description.length === 0) missing.push(childPath);
    missing.push(...undescribedFields(child, childPath));
  }
  if (schema.items) missing.push(...undescribedFields(schema.items, `${path}[]`));
  return missing;
}
