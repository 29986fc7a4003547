/**
 * x-kubernetes-list-type, -list-map-keys and -map-type: on arrays and objects only, set items
 * atomic, map lists of objects keyed by scalar properties that are required or defaulted and not
 * nullable (17 #58–#73); and x-kubernetes-preserve-unknown-fields may only be true.
 */
import { fieldErr, type FieldError } from '../../errors';
import { isPlainObject, type Obj } from '../../types';
import { goStringSlice } from '../goSyntax';
import { child, key } from './paths';

export function listAndMapTypeErrors(s: Obj, path: string, out: FieldError[]): void {
  const mapType = s['x-kubernetes-map-type'];
  const listType = s['x-kubernetes-list-type'];
  const keys = (s['x-kubernetes-list-map-keys'] ?? []) as string[];
  const items = isPlainObject(s.items) ? s.items : undefined;
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    out.push(
      fieldErr.invalidRaw(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        'false',
        'must be true or undefined',
      ),
    );
  }
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type)
      out.push(
        fieldErr.required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'),
      );
    else
      out.push(
        fieldErr.invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'),
      );
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    out.push(fieldErr.notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type)
      out.push(
        fieldErr.required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'),
      );
    else
      out.push(
        fieldErr.invalid(child(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified'),
      );
  } else if (listType === 'set' && items) {
    const atomic = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    if (
      items.type === 'array' &&
      items['x-kubernetes-list-type'] !== undefined &&
      items['x-kubernetes-list-type'] !== 'atomic'
    ) {
      out.push(
        fieldErr.invalid(
          child(child(path, 'items'), 'x-kubernetes-list-type'),
          items['x-kubernetes-list-type'],
          atomic,
        ),
      );
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // The server quotes the items' list type here (nil: "null"), not their map type (17 #58).
      const shown = items['x-kubernetes-list-type'] ?? 'null';
      out.push(fieldErr.invalid(child(child(path, 'items'), 'x-kubernetes-map-type'), shown, atomic));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    out.push(
      fieldErr.notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']),
    );
  }
  if (keys.length > 0) {
    const msg = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType === undefined) out.push(fieldErr.required(child(path, 'x-kubernetes-list-type'), msg));
    else if (listType !== 'map')
      out.push(fieldErr.invalid(child(path, 'x-kubernetes-list-type'), listType, msg));
  }
  if (listType === 'map') mapListErrors(s, keys, path, out);
}

function mapListErrors(s: Obj, keys: string[], path: string, out: FieldError[]): void {
  if (keys.length === 0) {
    out.push(
      fieldErr.required(
        child(path, 'x-kubernetes-list-map-keys'),
        'must not be empty if x-kubernetes-list-type is map',
      ),
    );
  }
  if (s.items === undefined) {
    out.push(fieldErr.required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    return;
  }
  if (!isPlainObject(s.items)) return;
  const items = s.items;
  if (items.type !== 'object') {
    out.push(
      fieldErr.invalid(
        child(child(path, 'items'), 'type'),
        items.type ?? '',
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
    return;
  }
  const seen = new Set<string>();
  for (const k of keys) {
    const prop = (items.properties ?? {})[k] as Obj | undefined;
    if (prop) {
      if (prop.type === 'array' || prop.type === 'object') {
        out.push(
          fieldErr.invalid(
            child(key(child(child(path, 'items'), 'properties'), k), 'type'),
            items.type,
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      }
    } else {
      out.push(
        fieldErr.invalidRaw(
          child(path, 'x-kubernetes-list-map-keys'),
          goStringSlice(keys),
          'entries must all be names of item properties',
        ),
      );
    }
    if (seen.has(k)) {
      out.push(
        fieldErr.invalidRaw(
          child(path, 'x-kubernetes-list-map-keys'),
          goStringSlice(keys),
          'must not contain duplicate entries',
        ),
      );
    }
    seen.add(k);
  }
}

/** Set and map list items may not be null; map keys must be required or defaulted, and not nullable. */
export function mapSetKeyErrors(s: Obj, path: string, out: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  if (!isPlainObject(s.items) || (listType !== 'set' && listType !== 'map')) return;
  const items = s.items;
  if (items.nullable)
    out.push(
      fieldErr.forbidden(
        child(child(path, 'items'), 'nullable'),
        `cannot be nullable when x-kubernetes-list-type is ${listType}`,
      ),
    );
  if (listType !== 'map') return;
  const required = new Set((items.required ?? []) as string[]);
  for (const k of (s['x-kubernetes-list-map-keys'] ?? []) as string[]) {
    const prop = (items.properties ?? {})[k] as Obj | undefined;
    if (!prop) continue;
    const at = key(child(child(path, 'items'), 'properties'), k);
    if (!required.has(k) && prop.default === undefined) {
      out.push(
        fieldErr.required(
          child(at, 'default'),
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    }
    if (prop.nullable) {
      out.push(
        fieldErr.forbidden(
          child(at, 'nullable'),
          'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
        ),
      );
    }
  }
}
