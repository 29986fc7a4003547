import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { KUBE_API_OPENAPI_DIR } from '../kubeApiFixtures';
import { modelKindsDocument } from './modelKinds';

/**
 * Validates Kubernetes objects against the OpenAPI v3 documents that a real kube-apiserver v1.32
 * served (test/fixtures/kube-api/openapi), stricter than the documents themselves: an unknown field is
 * an error (the server would drop it with a warning, or refuse it with fieldValidation=Strict), as
 * is a wrong type. Documents are read on first use and compiled once per process. The kinds those
 * documents lack (Deployment, PodDisruptionBudget, Ingress, ServiceMonitor, ...) are checked
 * against schemas read from kubernetes-models (modelKinds.ts), built on the same core schemas.
 */

export const OPENAPI_DIR = KUBE_API_OPENAPI_DIR;

export interface ValidationResult {
  valid: boolean;
  errors: string[];
}

type Node = Record<string, unknown>;

const DOCUMENT_ID_PREFIX = 'https://kube-openapi.test/';
const coreRef = (schemaName: string) => `${DOCUMENT_ID_PREFIX}api__v1.json#/components/schemas/${schemaName}`;
const OBJECT_META_REF = coreRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
const MODEL_KINDS_ID = `${DOCUMENT_ID_PREFIX}model-kinds.json`;

let ajv: Ajv | undefined;
let modelKinds: Map<string, string> | undefined;
const loadedDocuments = new Set<string>();
const kindIndex = new Map<string, Map<string, string>>();
const validators = new Map<string, ValidateFunction>();

function validatorEngine(): Ajv {
  if (!ajv) {
    ajv = withKubernetesFormats(new Ajv({ strict: false, allErrors: true, validateFormats: true }));
  }
  return ajv;
}

/**
 * Teaches `engine` the formats of Kubernetes' schemas: `date-time` is checked; the others describe
 * Go types, whose values the types and patterns already check (and Ajv would warn of each unknown).
 */
export function withKubernetesFormats(engine: Ajv): Ajv {
  addFormats(engine, ['date-time']);
  for (const format of ['int32', 'int64', 'double', 'float', 'byte', 'int-or-string', 'quantity']) {
    engine.addFormat(format, true);
  }
  return engine;
}

/** The document file of an apiVersion: `v1` → api__v1.json, `batch/v1` → apis__batch__v1.json. */
export function documentFileFor(apiVersion: string): string {
  return apiVersion.includes('/') ? `apis__${apiVersion.replace('/', '__')}.json` : `api__${apiVersion}.json`;
}

function loadDocument(file: string): Map<string, string> {
  const known = kindIndex.get(file);
  if (known) return known;
  const document = JSON.parse(readFileSync(resolve(OPENAPI_DIR, file), 'utf8')) as {
    components: { schemas: Record<string, Node> };
  };
  const schemas = Object.fromEntries(
    Object.entries(document.components.schemas).map(([name, schema]) => [name, strictened(schema)]),
  );
  if (!loadedDocuments.has(file)) {
    validatorEngine().addSchema({ $id: `${DOCUMENT_ID_PREFIX}${file}`, components: { schemas } });
    loadedDocuments.add(file);
  }
  const kinds = new Map<string, string>();
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    for (const { group, version, kind } of gvks) {
      kinds.set(`${group ? `${group}/` : ''}${version}/${kind}`, name);
    }
  }
  kindIndex.set(file, kinds);
  return kinds;
}

/**
 * A copy of a schema that fails on what the API server would not keep:
 * - objects with `properties` get `additionalProperties: false` unless they preserve unknown fields;
 * - int-or-string nodes accept exactly an integer or a string.
 */
function strictened(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictened);
  if (node === null || typeof node !== 'object') return node;
  const source = node as Node;
  const out: Node = {};
  for (const [key, value] of Object.entries(source)) {
    // Inside `properties` the keys are field names, not keywords: copy each field's schema.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Node).map(([name, child]) => [name, strictened(child)]))
        : strictened(value);
  }
  if (source['x-kubernetes-int-or-string'] === true || source.format === 'int-or-string') {
    delete out.oneOf;
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  if (
    out.properties !== undefined &&
    out.additionalProperties === undefined &&
    source['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    out.additionalProperties = false;
  }
  return out;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const where = error.instancePath || '(root)';
    if (error.keyword === 'additionalProperties') {
      return `${where}: unknown field "${String(error.params.additionalProperty)}"`;
    }
    return `${where}: ${error.message ?? error.keyword}`;
  });
}

/**
 * The API server's JSON decoder reads `null` as "not set" (templates come back with
 * `creationTimestamp: null`), so nulls are dropped before validation, as the server would.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null)
      .map(([key, field]) => [key, withoutNulls(field)]),
  );
}

function run(validate: ValidateFunction, object: unknown): ValidationResult {
  const valid = validate(withoutNulls(object)) as boolean;
  return { valid, errors: valid ? [] : describeErrors(validate.errors) };
}

/** The kinds of modelKinds.ts, added to the engine on first use. */
function loadModelKinds(): Map<string, string> {
  if (!modelKinds) {
    loadDocument('api__v1.json');
    const document = modelKindsDocument(coreRef);
    validatorEngine().addSchema({
      $id: MODEL_KINDS_ID,
      components: { schemas: strictened(document.schemas) },
    });
    modelKinds = document.kinds;
  }
  return modelKinds;
}

/** The schema of an apiVersion and kind: from the server's documents, else from the models. */
function schemaRefFor(apiVersion: string, kind: string): string | null {
  const file = documentFileFor(apiVersion);
  if (existsSync(resolve(OPENAPI_DIR, file))) {
    const name = loadDocument(file).get(`${apiVersion}/${kind}`);
    return name ? `${DOCUMENT_ID_PREFIX}${file}#/components/schemas/${name}` : null;
  }
  const name = loadModelKinds().get(`${apiVersion}/${kind}`);
  return name ? `${MODEL_KINDS_ID}#/components/schemas/${name}` : null;
}

/** Validates a built-in object (CronJob, Secret, Deployment...) against the schema of its apiVersion and kind. */
export function validateKubernetesObject(object: { apiVersion?: string; kind?: string }): ValidationResult {
  const { apiVersion, kind } = object;
  if (!apiVersion || !kind) return { valid: false, errors: ['(root): apiVersion and kind are required'] };
  const key = `${apiVersion}/${kind}`;
  let validate = validators.get(key);
  if (!validate) {
    const ref = schemaRefFor(apiVersion, kind);
    if (!ref) return { valid: false, errors: [`(root): no schema for ${apiVersion} ${kind}`] };
    validate = validatorEngine().getSchema(ref);
    if (!validate) throw new Error(`cannot compile the schema of ${apiVersion} ${kind}`);
    validators.set(key, validate);
  }
  return run(validate, object);
}

interface CrdLike {
  metadata?: { name?: string };
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; schema?: { openAPIV3Schema?: object } }[];
  };
}

/**
 * Validates a custom resource against the schema of its version in `crd`, as the API server with
 * fieldValidation=Strict would (CEL rules are not evaluated); metadata is checked as ObjectMeta.
 */
export function validateAgainstCrd(
  object: { apiVersion?: string; kind?: string },
  crd: CrdLike,
): ValidationResult {
  const { group, names, versions } = crd.spec;
  const version = versions.find((candidate) => `${group}/${candidate.name}` === object.apiVersion);
  if (!version)
    return { valid: false, errors: [`(root): apiVersion ${object.apiVersion} is not served by the CRD`] };
  if (object.kind !== names.kind) return { valid: false, errors: [`(root): kind must be ${names.kind}`] };
  const key = `crd:${crd.metadata?.name}:${version.name}:${JSON.stringify(version.schema)}`;
  let validate = validators.get(key);
  if (!validate) {
    loadDocument('api__v1.json');
    const schema = strictened(version.schema?.openAPIV3Schema ?? {}) as Node;
    const properties = { ...(schema.properties as Node), metadata: { $ref: OBJECT_META_REF } };
    validate = validatorEngine().compile({ ...schema, properties });
    validators.set(key, validate);
  }
  return run(validate, object);
}
