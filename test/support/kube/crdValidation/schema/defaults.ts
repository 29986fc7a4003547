/**
 * Defaults must be what the schema would accept and keep (apiextensions' ValidateDefaults): no field
 * the schema would prune (17 #41), a valid resource where the default is one (apiVersion and kind
 * at the root, 17 #48), every value validation (type, enum, pattern, format, required: 17 #38–#42,
 * #50) and, last, the CEL rules (17 #46). The schema's root counts as an embedded resource.
 */
import { fieldErr, type FieldError } from '../../errors';
import { clone, deepEqual, isPlainObject, type Obj } from '../../types';
import { goInterfaceValue } from '../goSyntax';
import { defaultRuleErrors, defaultValueErrors } from './defaultValueChecks';
import { child, key } from './paths';
import { pruneLikeServer } from './prune';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Group/version syntax the server accepts in apiVersion (schema.ParseGroupVersion). */
function apiVersionError(v: string): string | undefined {
  const parts = v.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${v}`;
  return undefined;
}

/** An embedded resource's own fields: apiVersion and kind are required strings. */
function embeddedResourceErrors(x: Obj, path: string): FieldError[] {
  const out: FieldError[] = [];
  if (!('apiVersion' in x)) out.push(fieldErr.required(child(path, 'apiVersion'), 'must not be empty'));
  if (!('kind' in x)) out.push(fieldErr.required(child(path, 'kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') out.push(fieldErr.invalid(child(path, k), v, 'must be a string'));
      else if (!v) out.push(fieldErr.invalid(child(path, k), v, 'must not be empty'));
      else if (apiVersionError(v)) out.push(fieldErr.invalid(child(path, k), v, apiVersionError(v)!));
    } else if (k === 'kind') {
      if (typeof v !== 'string') out.push(fieldErr.invalid(child(path, k), v, 'must be a string'));
      else if (!v) out.push(fieldErr.invalid(child(path, k), v, 'must not be empty'));
    }
  }
  return out;
}

/** Embedded resources anywhere in a value, checked against their schemas. */
function resourceErrors(value: unknown, s: Obj, isResource: boolean, path: string): FieldError[] {
  const out: FieldError[] = [];
  if (isPlainObject(value)) {
    if (isResource) out.push(...embeddedResourceErrors(value, path));
    for (const [k, v] of Object.entries(value)) {
      if (isResource && META_FIELDS.has(k)) continue;
      const prop = (s.properties ?? {})[k] as Obj | undefined;
      const sub = prop ?? (isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined);
      if (sub)
        out.push(...resourceErrors(v, sub, sub['x-kubernetes-embedded-resource'] === true, child(path, k)));
    }
  } else if (Array.isArray(value) && isPlainObject(s.items)) {
    const items = s.items;
    value.forEach((v, i) =>
      out.push(
        ...resourceErrors(v, items, items['x-kubernetes-embedded-resource'] === true, `${path}[${i}]`),
      ),
    );
  }
  return out;
}

function defaultErrors(s: Obj, isResource: boolean, insideMeta: boolean, path: string): FieldError[] {
  const value = s.default;
  const at = child(path, 'default');
  const out: FieldError[] = [];
  if (!insideMeta) {
    const pruned = clone(value);
    pruneLikeServer(pruned, s, isResource);
    if (!deepEqual(pruned, value))
      out.push(fieldErr.invalidRaw(at, goInterfaceValue(value), 'must not have unknown fields'));
    const resource = resourceErrors(value, s, isResource, at);
    if (resource.length) return [...out, ...resource];
  }
  const values = defaultValueErrors(value, s, at);
  if (values.length) return [...out, ...values];
  return [...out, ...defaultRuleErrors(value, s, at)];
}

function visit(s: Obj, path: string, isRoot: boolean, insideMeta: boolean, out: FieldError[]): void {
  const isResource = isRoot || s['x-kubernetes-embedded-resource'] === true;
  const meta = isResource ? false : insideMeta;
  if (s.default !== undefined) out.push(...defaultErrors(s, isResource, meta, path));
  if (isPlainObject(s.items)) visit(s.items, child(path, 'items'), false, meta, out);
  for (const name of Object.keys((s.properties ?? {}) as Obj).sort()) {
    visit(
      s.properties[name],
      key(child(path, 'properties'), name),
      false,
      meta || (isResource && META_FIELDS.has(name)),
      out,
    );
  }
}

export function validateDefaults(schema: Obj, path: string): FieldError[] {
  const out: FieldError[] = [];
  visit(schema, path, true, false, out);
  return out;
}
