/**
 * Schema checks for rendered manifests, strict about unknown fields (a typo in a template must
 * fail, where the API server would only prune it with a warning).
 *
 * - Built-in kinds: the real kube-apiserver v1.32's OpenAPI v3 documents in
 *   ../shared/kube-api/openapi (core, batch, rbac, coordination, events, apiextensions ...).
 *   Those documents hold no apps/v1, policy/v1 or networking.k8s.io/v1: for Deployment,
 *   StatefulSet, PodDisruptionBudget and Ingress the outer types are derived from the type
 *   declarations of `kubernetes-models` (generated from the upstream OpenAPI), while everything
 *   they embed from core/v1 and meta/v1 (pod templates, containers, ObjectMeta, selectors, PVCs)
 *   is checked against the real server's schemas.
 * - ServiceMonitor / PrometheusRule: the type declarations of @kubernetes-models/prometheus-operator
 *   (unknown fields) plus the package's own validate() run in a child Node process (the package
 *   is ESM-only, which Jest's CommonJS runtime cannot load).
 * - Custom resources: their CRD's openAPIV3Schema (validateCustomResource).
 *
 * Objects are closed by adding `additionalProperties: false` to every schema object with
 * `properties` and neither `additionalProperties` nor `x-kubernetes-preserve-unknown-fields`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const OPENAPI_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'kube-api', 'openapi');
const NODE_MODULES = path.join(REPO_ROOT, 'node_modules');

type Json = Record<string, unknown>;
type Schema = Record<string, unknown>;

const CORE_PREFIXES: Array<[string, string]> = [
  ['IIoK8sApiCoreV1', 'io.k8s.api.core.v1.'],
  ['IIoK8sApimachineryPkgApisMetaV1', 'io.k8s.apimachinery.pkg.apis.meta.v1.'],
  ['IIoK8sApimachineryPkgUtilIntstr', 'io.k8s.apimachinery.pkg.util.intstr.'],
  ['IIoK8sApimachineryPkgApiResource', 'io.k8s.apimachinery.pkg.api.resource.'],
];

/** Kinds missing from the recorded OpenAPI documents: their model declaration file. */
const MODEL_KINDS: Record<string, string> = {
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment.d.ts',
  'apps/v1/StatefulSet': 'kubernetes-models/apps/v1/StatefulSet.d.ts',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget.d.ts',
  'networking.k8s.io/v1/Ingress': 'kubernetes-models/networking.k8s.io/v1/Ingress.d.ts',
  'monitoring.coreos.com/v1/ServiceMonitor':
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor.d.ts',
  'monitoring.coreos.com/v1/PrometheusRule':
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule.d.ts',
};
const PROMETHEUS_KINDS = new Set(['ServiceMonitor', 'PrometheusRule']);

/** Adds additionalProperties: false to every object schema that lists its properties. */
export function closeSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    // `properties` maps names to schemas: keep its keys, close each schema.
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, closeSchema(v)]));
    } else {
      out[key] = closeSchema(value);
    }
  }
  if (
    out.properties &&
    out.additionalProperties === undefined &&
    out['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    out.additionalProperties = false;
  }
  return out;
}

/** The API server treats null as absent; so do we. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Json)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, dropNulls(v)]),
  );
}

// --- type declarations of kubernetes-models -> JSON schema -----------------------------------

interface DeclaredType {
  schema: Schema;
}

class DeclarationReader {
  readonly definitions: Record<string, Schema> = {};
  private readonly seen = new Map<string, string>();

  /** Reads the declaration file's main interface; returns a $ref to it. */
  read(file: string): Schema {
    const known = this.seen.get(file);
    if (known) return { $ref: `#/components/schemas/${known}` };
    const text = readFileSync(file, 'utf8');
    const name = `models.${path
      .relative(NODE_MODULES, file)
      .replace(/\.d\.ts$/, '')
      .replace(/[/@]/g, '.')}`;
    this.seen.set(file, name);
    const imports = new Map<string, string>();
    for (const m of text.matchAll(/import \{ (\w+) \} from "([^"]+)";/g)) imports.set(m[1]!, m[2]!);
    const alias = /^export type I\w+ = (.+);$/m.exec(text);
    const body = /export interface I\w+(?: extends [\w, ]+)? \{\n([\s\S]*?)\n\}/.exec(text);
    if (!body) {
      this.definitions[name] = alias ? this.typeOf(alias[1]!.trim(), imports, file).schema : {};
      return { $ref: `#/components/schemas/${name}` };
    }
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    // Property lines at four spaces of indentation; inline object types span several lines.
    for (const m of body[1]!.matchAll(/^ {4}"([^"]+)"(\?)?: ([^\n]*?);?$/gm)) {
      const [, prop, optional, type] = m;
      properties[prop!] = type === '{' ? {} : this.typeOf(type!.trim(), imports, file).schema;
      if (!optional) required.push(prop!);
    }
    this.definitions[name] = { type: 'object', properties, ...(required.length ? { required } : {}) };
    return { $ref: `#/components/schemas/${name}` };
  }

  private typeOf(type: string, imports: Map<string, string>, file: string): DeclaredType {
    if (type === 'string') return { schema: { type: 'string' } };
    if (type === 'number') return { schema: { type: 'number' } };
    if (type === 'boolean') return { schema: { type: 'boolean' } };
    if (/^("[^"]*"( \| )?)+$/.test(type)) {
      return { schema: { enum: [...type.matchAll(/"([^"]*)"/g)].map((m) => m[1]) } };
    }
    const array = /^Array<(.+)>$/.exec(type) ?? /^(\w+)\[\]$/.exec(type);
    if (array) return { schema: { type: 'array', items: this.typeOf(array[1]!, imports, file).schema } };
    for (const [prefix, openapi] of CORE_PREFIXES) {
      if (type.startsWith(prefix))
        return { schema: { $ref: `#/components/schemas/${openapi}${type.slice(prefix.length)}` } };
    }
    const from = imports.get(type);
    if (from?.startsWith('.'))
      return { schema: this.read(path.resolve(path.dirname(file), from.replace(/\.js$/, '.d.ts'))) };
    // Anything else (unions of several kinds, inline objects): not checked further.
    return { schema: {} };
  }
}

// --- the validator ---------------------------------------------------------------------------

let cached: { byGvk: Map<string, string>; ajv: Ajv } | null = null;

function gvkKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

function load(): { byGvk: Map<string, string>; ajv: Ajv } {
  if (cached) return cached;
  if (!existsSync(OPENAPI_DIR)) throw new Error(`no OpenAPI documents at ${OPENAPI_DIR}`);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const byGvk = new Map<string, string>();
  for (const file of readdirSync(OPENAPI_DIR).filter((f) => f.includes('__'))) {
    const doc = JSON.parse(readFileSync(path.join(OPENAPI_DIR, file), 'utf8')) as {
      components: { schemas: Record<string, Schema> };
    };
    const schemas = doc.components.schemas;
    if (file === 'api__v1.json') {
      // The kinds the recorded server lacks, built on the core schemas of this document.
      const reader = new DeclarationReader();
      const roots: Record<string, Schema> = {};
      for (const [gvk, decl] of Object.entries(MODEL_KINDS))
        roots[gvk] = reader.read(path.join(NODE_MODULES, decl));
      Object.assign(schemas, reader.definitions);
      for (const [gvk, ref] of Object.entries(roots)) {
        const name = String(ref.$ref).replace('#/components/schemas/', '');
        const root = schemas[name] as { properties: Record<string, Schema> };
        // Their metadata is the real ObjectMeta.
        root.properties.metadata = {
          $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
        };
        schemas[name] = { ...root, 'x-kubernetes-group-version-kind': [gvkParts(gvk)] };
      }
    }
    const id = `openapi:${file}`;
    ajv.addSchema(closeSchema(doc) as Schema, id);
    for (const [name, schema] of Object.entries(schemas)) {
      const gvks = schema['x-kubernetes-group-version-kind'] as
        Array<{ group: string; version: string; kind: string }> | undefined;
      for (const g of gvks ?? []) {
        const key = gvkKey(g.group ? `${g.group}/${g.version}` : g.version, g.kind);
        if (byGvk.has(key)) continue;
        byGvk.set(key, `${id}#/components/schemas/${name}`); // compiled on first use
      }
    }
  }
  cached = { byGvk, ajv };
  return cached;
}

function gvkParts(gvk: string): { group: string; version: string; kind: string } {
  const parts = gvk.split('/');
  return parts.length === 3
    ? { group: parts[0]!, version: parts[1]!, kind: parts[2]! }
    : { group: '', version: parts[0]!, kind: parts[1]! };
}

function formatErrors(v: ValidateFunction): string[] {
  return (v.errors ?? []).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (unknown field "${(e.params as { additionalProperty: string }).additionalProperty}")`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)})`
          : '';
    return `${e.instancePath || '/'} ${e.message}${extra}`;
  });
}

/** True when a schema for this object's apiVersion and kind is known. */
export function isKnownKind(obj: Json): boolean {
  return load().byGvk.has(gvkKey(String(obj.apiVersion), String(obj.kind)));
}

/**
 * Checks a built-in object (or a ServiceMonitor/PrometheusRule) against its schema; returns the
 * problems, empty when it is valid. An unknown apiVersion/kind is a problem too.
 */
export function validateKubernetesObject(obj: Json): string[] {
  const { byGvk, ajv } = load();
  const ref = byGvk.get(gvkKey(String(obj.apiVersion), String(obj.kind)));
  if (!ref) return [`no schema for ${String(obj.apiVersion)} ${String(obj.kind)}`];
  const validate = ajv.getSchema(ref)!;
  return validate(dropNulls(obj)) ? [] : formatErrors(validate);
}

/** Checks a custom resource against the openAPIV3Schema of its CRD's served version. */
export function validateCustomResource(obj: Json, crd: Json): string[] {
  const spec = crd.spec as {
    group: string;
    names: { kind: string };
    versions: Array<{ name: string; schema: { openAPIV3Schema: Schema } }>;
  };
  const [group, version] = String(obj.apiVersion).split('/');
  if (group !== spec.group || obj.kind !== spec.names.kind) return [`not a ${spec.names.kind}.${spec.group}`];
  const served = spec.versions.find((v) => v.name === version);
  if (!served) return [`${spec.group} serves no version ${version}`];
  const schema = closeSchema(served.schema.openAPIV3Schema) as Schema & { properties?: Json };
  // The API server checks metadata itself; the CRD schema leaves it open.
  const { metadata, ...rest } = dropNulls(obj) as Json;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile({ ...schema, properties: { ...schema.properties, metadata: {} } });
  const problems = validate({ ...rest, metadata: {} }) ? [] : formatErrors(validate);
  const meta = load().ajv.getSchema(
    'openapi:api__v1.json#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  )!;
  if (!meta(metadata ?? {})) problems.push(...formatErrors(meta).map((p) => `/metadata${p}`));
  return problems;
}

/**
 * Runs @kubernetes-models' own validate() on ServiceMonitors and PrometheusRules (types,
 * patterns, enums), in one child process. Returns the problems of each object, in order.
 */
export function validateWithPrometheusModels(objs: Json[]): string[][] {
  const script = `
    import { ServiceMonitor, PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
    const models = { ServiceMonitor, PrometheusRule };
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const out = JSON.parse(input).map((obj) => {
      const Model = models[obj.kind];
      if (!Model) return ['no model for ' + obj.kind];
      try { new Model(obj).validate(); return []; }
      catch (e) { return (e.errors ?? [e]).map((x) => (x.instancePath ?? '') + ' ' + x.message); }
    });
    process.stdout.write(JSON.stringify(out));
  `;
  const selected = objs.filter((o) => PROMETHEUS_KINDS.has(String(o.kind)));
  if (selected.length === 0) return objs.map(() => []);
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    input: JSON.stringify(selected),
    encoding: 'utf8',
  });
  const results = JSON.parse(stdout) as string[][];
  let i = 0;
  return objs.map((o) => (PROMETHEUS_KINDS.has(String(o.kind)) ? results[i++]! : []));
}
