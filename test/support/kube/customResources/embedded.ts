import { fieldErr, type FieldError } from '../errors';
import type { Schema } from '../schema';
import { isPlainObject, type Obj } from '../types';
import { objectMetaErrors } from './objectMeta';

function child(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

/** A path segment name (the embedded object's name): no `/`, `%`, and not `.` or `..`. */
function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
  return [];
}

/**
 * schemaobjectmeta.Validate for the resources a custom resource embeds
 * (x-kubernetes-embedded-resource): apiVersion and kind required, their ObjectMeta valid, its
 * name only a path segment (18 #46: `Bad_Name` passes).
 */
export function embeddedResourceErrors(x: unknown, s: Schema | undefined, path = ''): FieldError[] {
  if (!s) return [];
  if (Array.isArray(x)) return x.flatMap((v, i) => embeddedResourceErrors(v, s.items, `${path}[${i}]`));
  if (!isPlainObject(x)) return [];
  const errs: FieldError[] = [];
  if (s['x-kubernetes-embedded-resource'] && path !== '') errs.push(...embeddedErrors(x, path));
  const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties?.[k] ?? additional;
    errs.push(...embeddedResourceErrors(v, prop, child(path, k)));
  }
  return errs;
}

function embeddedErrors(x: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in x)) errs.push(fieldErr.required(`${path}.apiVersion`, 'must not be empty'));
  if (!('kind' in x)) errs.push(fieldErr.required(`${path}.kind`, 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion' || k === 'kind') {
      if (typeof v !== 'string') errs.push(fieldErr.invalid(`${path}.${k}`, v, 'must be a string'));
      else if (!v) errs.push(fieldErr.invalid(`${path}.${k}`, v, 'must not be empty'));
      else if (k === 'apiVersion' && v.split('/').length > 2) {
        errs.push(fieldErr.invalid(`${path}.${k}`, v, `unexpected GroupVersion string: ${v}`));
      }
    } else if (k === 'metadata' && isPlainObject(v)) {
      const meta: Obj = { ...v, name: v.name || 'fakename' };
      const metaPath = `${path}.metadata`;
      // The embedded name is only a path segment: its DNS checks give way to that one.
      for (const m of pathSegmentNameErrors(meta.name))
        errs.push(fieldErr.invalid(`${metaPath}.name`, meta.name, m));
      for (const e of objectMetaErrors(meta, Boolean(meta.namespace))) {
        if (e.field !== 'metadata.name') errs.push({ ...e, field: e.field.replace(/^metadata/, metaPath) });
      }
    }
  }
  return errs;
}
