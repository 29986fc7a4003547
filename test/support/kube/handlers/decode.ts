import { ApiError, badRequest, invalid, fieldErr } from '../errors';
import { apiVersionOf, type ResourceType } from '../resources';
import { isPlainObject, type Obj } from '../types';
import { duplicateFields } from '../duplicates';
import { warning, type RequestContext } from './context';

/** The "cannot be handled as a Kind" prefix of decode failures (02-cr #17, 10-lease #13). */
function decodePrefix(type: ResourceType): string {
  return `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}`;
}

/**
 * Checks apiVersion and kind of a full object body, then prunes unknown fields according to
 * fieldValidation: Strict → 400 listing them, Warn (the default) → one Warning per field.
 */
export function decodeObject(ctx: RequestContext, body: unknown): Obj {
  const type = ctx.type;
  if (!isPlainObject(body)) throw badRequest(`${decodePrefix(type)}: body is not a JSON object`);
  const obj = body;
  const expected = apiVersionOf(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    // The real decoder reads the body as unstructured and warns about its top-level fields (02-cr #15).
    if (type.custom) {
      for (const k of Object.keys(obj).sort()) {
        if (!['apiVersion', 'kind', 'metadata'].includes(k))
          ctx.warnings.push(warning(`unknown field "${k}"`));
      }
    }
    throw badRequest(
      `the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== type.kind && type.custom) {
    throw invalid(obj.kind as string, type.group, obj.metadata?.name ?? '', [
      fieldErr.invalid('kind', obj.kind, `must be ${type.kind}`),
    ]);
  }
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  // Go structs decode JSON null as the zero value, which omitempty then drops (10-lease #17).
  if (!type.custom) dropNulls(obj);
  pruneUnknown(ctx, obj, ctx.rawBody);
  obj.apiVersion = expected;
  obj.kind = type.kind;
  return obj;
}

/** Unknown and duplicated fields: Strict → 400, Warn → one Warning each, Ignore → silence (14 #13–#22). */
export function pruneUnknown(ctx: RequestContext, obj: Obj, raw?: string): void {
  // A decoding failure comes before strict decoding's complaints (the JSON decoder runs first).
  ctx.type.decode?.(obj, ctx.method === 'PATCH');
  const problems = [
    ...(raw ? duplicateFields(raw).map((d) => `duplicate field "${d}"`) : []),
    ...(ctx.type.prune ? ctx.type.prune(obj) : []).map((u) => `unknown field "${u}"`),
  ];
  if (problems.length === 0) return;
  if (ctx.fieldValidation === 'Strict') {
    throw new ApiError(
      400,
      'BadRequest',
      `${decodePrefix(ctx.type)}: strict decoding error: ${problems.join(', ')}`,
    );
  }
  if (ctx.fieldValidation === 'Warn') for (const p of problems) ctx.warnings.push(warning(p));
}

function dropNulls(v: unknown): void {
  if (Array.isArray(v)) return v.forEach(dropNulls);
  if (!isPlainObject(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (x === null) delete v[k];
    else dropNulls(x);
  }
}
