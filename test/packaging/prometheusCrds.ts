import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { modelKindsDocument } from '../support/openapi/modelKinds';
import { OPENAPI_DIR } from '../support/openapi/kubernetesSchemas';

type Schema = Record<string, unknown>;

const GROUP = 'monitoring.coreos.com';
const CORE_REF = 'core:';
const LOCAL_REF = '#/components/schemas/';
/** What a node of a structural schema may hold here (the server refuses other keys with Strict). */
const KEPT_KEYS = [
  'type',
  'format',
  'description',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
];
const ANY_VALUE: Schema = { 'x-kubernetes-preserve-unknown-fields': true };

/**
 * The CustomResourceDefinitions of the Prometheus Operator kinds the chart renders (ServiceMonitor,
 * PrometheusRule), so that an API server, the emulator included, serves and validates them.
 *
 * The operator's own CRDs are not published where this project can fetch them. Their schemas are
 * generated from the operator's Go types, and so are the declarations of
 * `@kubernetes-models/prometheus-operator`: the schemas here are those declarations as
 * test/support/openapi/modelKinds.ts reads them (the same schemas the packaging tests check unknown
 * fields against), with the core/v1 and meta/v1 types they embed taken from the real server's
 * OpenAPI document, made structural. Types the declarations do not spell out (maps such as a rule's
 * `labels`, unions) preserve unknown fields. What the models check beyond types (patterns, enums of
 * their own) stays with prometheusModels.ts, which a test runs beside.
 */
export function prometheusOperatorCrds(): Schema[] {
  const core = (
    JSON.parse(readFileSync(resolve(OPENAPI_DIR, 'api__v1.json'), 'utf8')) as {
      components: { schemas: Record<string, Schema> };
    }
  ).components.schemas;
  const models = modelKindsDocument((name) => `${CORE_REF}${name}`);
  /** A reference's schema, and whether it is a core one (whose own local references are core too). */
  const resolveRef = (ref: string, inCore: boolean): [Schema | undefined, boolean] => {
    if (ref.startsWith(CORE_REF)) return [core[ref.slice(CORE_REF.length)], true];
    const name = ref.slice(LOCAL_REF.length);
    return inCore ? [core[name], true] : [models.schemas[name], false];
  };

  const structural = (node: Schema, seen: string[], inCore = false): Schema => {
    const allOf = node.allOf as Schema[] | undefined;
    const ref = (node.$ref ?? (allOf?.length === 1 ? allOf[0]!.$ref : undefined)) as string | undefined;
    if (ref !== undefined) {
      const [target, targetInCore] = resolveRef(ref, inCore);
      // A type that contains itself has no structural form: its inner occurrence keeps any value.
      if (!target || seen.includes(ref)) return ANY_VALUE;
      const inlined = structural(target, [...seen, ref], targetInCore);
      return node.description ? { ...inlined, description: node.description } : inlined;
    }
    if (node.format === 'int-or-string' || node['x-kubernetes-int-or-string'] === true) {
      return { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    }
    const out: Schema = {};
    for (const key of KEPT_KEYS) if (node[key] !== undefined) out[key] = node[key];
    if (out.enum && !out.type) out.type = 'string';
    if (out.format === 'int-or-string') delete out.format;
    if (node.properties) {
      out.type = 'object';
      out.properties = Object.fromEntries(
        Object.entries(node.properties as Record<string, Schema>).map(([name, child]) => [
          name,
          structural(child, seen, inCore),
        ]),
      );
      if (node.required) out.required = node.required;
    } else if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      out.type = 'object';
      out.additionalProperties = structural(node.additionalProperties as Schema, seen, inCore);
    }
    if (node.items) out.items = structural(node.items as Schema, seen, inCore);
    return out.type ? out : ANY_VALUE;
  };

  return (['ServiceMonitor', 'PrometheusRule'] as const).map((kind) => {
    const root = structural(models.schemas[models.kinds.get(`${GROUP}/v1/${kind}`)!]!, []);
    const plural = `${kind.toLowerCase()}s`;
    const properties = { ...(root.properties as Record<string, Schema>), metadata: { type: 'object' } };
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: {
          plural,
          singular: kind.toLowerCase(),
          kind,
          listKind: `${kind}List`,
          categories: ['prometheus-operator'],
        },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { ...root, properties } },
          },
        ],
      },
    };
  });
}
