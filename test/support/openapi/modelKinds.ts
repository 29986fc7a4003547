import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Schemas for the kinds the recorded server's OpenAPI documents lack (they hold no apps/v1,
 * policy/v1, networking.k8s.io/v1 or monitoring.coreos.com/v1), read from the type declarations of
 * `kubernetes-models` and `@kubernetes-models/prometheus-operator` (generated from the upstream
 * OpenAPI). Only the outer types come from there: everything they embed from core/v1 and meta/v1
 * (pod templates, containers, ObjectMeta, selectors, PVCs) refers to the real server's schemas.
 */

type Schema = Record<string, unknown>;

// Found through Node's resolution, so that a compiled copy (the bench's, under .bench/build) finds
// them too: the declared dependency's folder, two levels under node_modules (kubernetes-models,
// which it depends on, sits beside it).
const NODE_MODULES = path.resolve(
  path.dirname(require.resolve('@kubernetes-models/prometheus-operator/package.json')),
  '../..',
);

/** apiVersion/kind → its declaration file under node_modules. */
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

/** The declarations' names of core and meta types, and the schema names they stand for. */
const CORE_PREFIXES: Array<[string, string]> = [
  ['IIoK8sApiCoreV1', 'io.k8s.api.core.v1.'],
  ['IIoK8sApimachineryPkgApisMetaV1', 'io.k8s.apimachinery.pkg.apis.meta.v1.'],
  ['IIoK8sApimachineryPkgUtilIntstr', 'io.k8s.apimachinery.pkg.util.intstr.'],
  ['IIoK8sApimachineryPkgApiResource', 'io.k8s.apimachinery.pkg.api.resource.'],
];

export interface ModelKindsDocument {
  /** Schemas by name, in the shape of an OpenAPI document's `components.schemas`. */
  schemas: Record<string, Schema>;
  /** apiVersion/kind → the name of its root schema. */
  kinds: Map<string, string>;
}

/**
 * The model kinds as one document. `coreRef(name)` gives the reference to a schema of the real
 * server's core document; references between model types stay local (`#/components/schemas/…`).
 */
export function modelKindsDocument(coreRef: (schemaName: string) => string): ModelKindsDocument {
  const reader = new DeclarationReader(coreRef);
  const kinds = new Map<string, string>();
  for (const [gvk, declaration] of Object.entries(MODEL_KINDS)) {
    const name = reader.read(path.join(NODE_MODULES, declaration));
    const root = reader.schemas[name] as { properties: Record<string, Schema> };
    // Their metadata is the real ObjectMeta.
    root.properties.metadata = { $ref: coreRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') };
    kinds.set(gvk, name);
  }
  return { schemas: reader.schemas, kinds };
}

class DeclarationReader {
  readonly schemas: Record<string, Schema> = {};
  private readonly seen = new Map<string, string>();

  constructor(private readonly coreRef: (schemaName: string) => string) {}

  /** Reads a declaration file's main interface into `schemas`; returns its schema name. */
  read(file: string): string {
    const known = this.seen.get(file);
    if (known) return known;
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
      this.schemas[name] = alias ? this.typeOf(alias[1]!.trim(), imports, file) : {};
      return name;
    }
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    // Property lines at four spaces of indentation; inline object types span several lines.
    for (const m of body[1]!.matchAll(/^ {4}"([^"]+)"(\?)?: ([^\n]*?);?$/gm)) {
      const [, prop, optional, type] = m;
      properties[prop!] = type === '{' ? {} : this.typeOf(type!.trim(), imports, file);
      if (!optional) required.push(prop!);
    }
    this.schemas[name] = { type: 'object', properties, ...(required.length ? { required } : {}) };
    return name;
  }

  private typeOf(type: string, imports: Map<string, string>, file: string): Schema {
    if (type === 'string') return { type: 'string' };
    if (type === 'number') return { type: 'number' };
    if (type === 'boolean') return { type: 'boolean' };
    if (/^("[^"]*"( \| )?)+$/.test(type)) return { enum: [...type.matchAll(/"([^"]*)"/g)].map((m) => m[1]) };
    const array = /^Array<(.+)>$/.exec(type) ?? /^(\w+)\[\]$/.exec(type);
    if (array) return { type: 'array', items: this.typeOf(array[1]!, imports, file) };
    for (const [prefix, schemaPrefix] of CORE_PREFIXES) {
      if (type.startsWith(prefix))
        return { $ref: this.coreRef(`${schemaPrefix}${type.slice(prefix.length)}`) };
    }
    const from = imports.get(type);
    if (from?.startsWith('.')) {
      const name = this.read(path.resolve(path.dirname(file), `${from.replace(/\.js$/, '')}.d.ts`));
      return { $ref: `#/components/schemas/${name}` };
    }
    // Anything else (unions of several kinds, inline objects): not checked further.
    return {};
  }
}
