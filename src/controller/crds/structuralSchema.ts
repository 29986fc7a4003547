import { z } from 'zod';

type Node = Record<string, unknown>;

/**
 * A schema node as it is written in YAML/JSON. (client-node's V1JSONSchemaProps names some keys
 * differently, `_default`, `x_kubernetes_list_type`, for its own serializer.)
 */
export type JsonSchemaNode = Record<string, unknown>;

/** Keywords a node of a CRD schema may carry here; anything else from zod is an error, not a surprise. */
const ALLOWED_KEYS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'items',
  'enum',
  'default',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'additionalProperties',
  'anyOf',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
]);

// z.number().int() says "a safe integer"; the API server's int64 already bounds it.
const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * The structural OpenAPI v3 schema (the dialect of CRDs) of a zod schema, from its input side so
 * fields with defaults are optional. What zod cannot express stays in zod: refinements run in the
 * controller, and the CRD checks what the API server can (types, patterns, bounds, enums, CEL
 * "exactly one of" rules).
 */
export function structuralSchemaOf(schema: z.ZodType): JsonSchemaNode {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Node;
  delete json.$schema;
  return convert(json, '');
}

function convert(node: Node, path: string): Node {
  if (node['x-kubernetes-int-or-string'] === true) return intOrString(node, path);
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    // Structural schemas prune unknown fields; additionalProperties may not sit beside properties.
    if (key === 'additionalProperties' && value === false) continue;
    // A map's keys (z.record) are JSON object keys: strings, which a structural schema cannot constrain.
    if (key === 'propertyNames') continue;
    if (!ALLOWED_KEYS.has(key)) throw new Error(`${path || '<root>'}: "${key}" has no place in a CRD schema`);
    out[key] = value;
  }
  if (out.type === 'integer') {
    if (out.minimum === -SAFE_INTEGER_BOUND) delete out.minimum;
    if (out.maximum === SAFE_INTEGER_BOUND) delete out.maximum;
  }
  // zod's ISO date-time pattern uses look-arounds that the API server's RE2 refuses; format says it.
  if (out.format === 'date-time') delete out.pattern;
  // Draft 2020-12 writes exclusive bounds as numbers, OpenAPI v3.0 as flags beside minimum/maximum.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] === 'number') {
      out[bound] = out[exclusive];
      out[exclusive] = true;
    }
  }
  // JavaScript escapes "/" in a regex source; RE2 does not need it.
  if (typeof out.pattern === 'string') out.pattern = out.pattern.replace(/\\\//g, '/');
  if (out.anyOf !== undefined) throw new Error(`${path}: a union has no structural form; use one object`);
  if (out.type === undefined) throw new Error(`${path || '<root>'}: every node of a CRD schema needs a type`);
  if (out.properties) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties as Record<string, Node>).map(([name, child]) => [
        name,
        convert(child, `${path}.${name}`),
      ]),
    );
  }
  if (out.items) out.items = convert(out.items as Node, `${path}[]`);
  if (typeof out.additionalProperties === 'object') {
    out.additionalProperties = convert(out.additionalProperties as Node, `${path}{}`);
  }
  return ordered(out);
}

// Description and type first, nested schemas last: the YAML reads like `kubectl explain`.
const KEY_ORDER = ['description', 'type', 'format'];
const LAST_KEYS = ['properties', 'required', 'items'];

function ordered(node: Node): Node {
  const rank = (key: string) =>
    KEY_ORDER.includes(key)
      ? KEY_ORDER.indexOf(key)
      : LAST_KEYS.includes(key)
        ? 100 + LAST_KEYS.indexOf(key)
        : 50;
  return Object.fromEntries(Object.entries(node).sort(([a], [b]) => rank(a) - rank(b)));
}

/** An int-or-string node in the one form the API server accepts: anyOf integer|string, nothing inside. */
function intOrString(node: Node, path: string): Node {
  const stringBranch = (node.anyOf as Node[] | undefined)?.find((branch) => branch.type === 'string');
  const out: Node = {};
  if (node.description !== undefined) out.description = node.description;
  if (node.default !== undefined) out.default = node.default;
  out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  if (stringBranch?.pattern !== undefined) out.pattern = stringBranch.pattern;
  out['x-kubernetes-int-or-string'] = true;
  if (!stringBranch) throw new Error(`${path}: an int-or-string node needs a string branch`);
  return out;
}
