import { ApiError, badRequest, fieldErr, invalid, notEmulated, notFound } from '../errors';
import { kindSchema } from '../kindSchemas';
import { apiVersionOf, present, resourceKey } from '../resources';
import { clone, isPlainObject, type Obj } from '../types';
import { applyPatch } from './apply';
import type { HandlerResult, RequestContext, ServerServices } from './context';
import { goMapString, patchDecodeError, patchedJson } from './patchErrors';
import { strategicMergePatch } from './strategicMerge';
import { update } from './write';

/** RFC 7386: objects merge, null deletes, everything else (lists too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const out: Obj = isPlainObject(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

class JsonPatchFailure extends Error {}

function unescape(seg: string): string {
  return seg.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parent(doc: unknown, path: string): { container: Obj | unknown[]; key: string } {
  if (!path.startsWith('/')) throw new JsonPatchFailure(path);
  const segs = path.slice(1).split('/').map(unescape);
  let cur: unknown = doc;
  for (const s of segs.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (isPlainObject(cur)) cur = cur[s];
    else throw new JsonPatchFailure(path);
    if (cur === undefined) throw new JsonPatchFailure(path);
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) throw new JsonPatchFailure(path);
  return { container: cur, key: segs[segs.length - 1]! };
}

function getAt(doc: unknown, path: string): unknown {
  const { container, key } = parent(doc, path);
  const v = Array.isArray(container) ? container[Number(key)] : container[key];
  if (v === undefined) throw new JsonPatchFailure(path);
  return v;
}

function removeAt(doc: unknown, path: string): unknown {
  const { container, key } = parent(doc, path);
  if (Array.isArray(container)) {
    const i = Number(key);
    if (!(i >= 0 && i < container.length)) throw new JsonPatchFailure(path);
    return container.splice(i, 1)[0];
  }
  if (!(key in container)) throw new JsonPatchFailure(path);
  const v = container[key];
  delete container[key];
  return v;
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): void {
  const { container, key } = parent(doc, path);
  if (Array.isArray(container)) {
    const i = key === '-' ? container.length : Number(key);
    if (!(i >= 0 && i <= container.length) || (replace && i >= container.length))
      throw new JsonPatchFailure(path);
    container.splice(i, replace ? 1 : 0, clone(value));
    return;
  }
  if (replace && !(key in container)) throw new JsonPatchFailure(path);
  container[key] = clone(value);
}

/** RFC 6902 against a copy; any failure is the one generic 422 of the transcripts (04 #13–#18). */
export function jsonPatch(doc: Obj, ops: unknown[]): Obj {
  const out = clone(doc);
  try {
    for (const raw of ops) {
      const op = raw as { op?: string; path?: string; from?: string; value?: unknown };
      const path = op.path ?? '';
      switch (op.op) {
        case 'add':
          addAt(out, path, op.value, false);
          break;
        case 'replace':
          addAt(out, path, op.value, true);
          break;
        case 'remove':
          removeAt(out, path);
          break;
        case 'test':
          if (JSON.stringify(getAt(out, path)) !== JSON.stringify(op.value)) throw new JsonPatchFailure(path);
          break;
        case 'move':
          addAt(out, path, removeAt(out, op.from ?? ''), false);
          break;
        case 'copy':
          addAt(out, path, getAt(out, op.from ?? ''), false);
          break;
        default:
          throw new JsonPatchFailure(path);
      }
    }
  } catch (e) {
    if (e instanceof JsonPatchFailure) {
      throw new ApiError(
        422,
        'Invalid',
        'the server rejected our request due to an error in our request',
        {},
      );
    }
    throw e;
  }
  return out;
}

const ACCEPTED_PATCHES =
  'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

export function patch(svc: ServerServices, ctx: RequestContext): HandlerResult {
  const type = ctx.type;
  const mediaType = ctx.contentType.split(';')[0]!.trim();
  if (mediaType === 'application/apply-patch+yaml') return applyPatch(svc, ctx);
  if (ctx.query.has('force')) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [
      fieldErr.forbidden('force', 'may not be specified for non-apply patch'),
    ]);
  }
  const strategic = mediaType === 'application/strategic-merge-patch+json';
  // Strategic merge needs the kind's patch strategies: without its schema it is not emulated.
  const strategicSchema = strategic && !type.custom ? kindSchema(apiVersionOf(type), type.kind) : undefined;
  if (strategic) {
    if (type.custom) throw new ApiError(415, 'UnsupportedMediaType', ACCEPTED_PATCHES);
    if (!strategicSchema) throw notEmulated(`strategic merge patch on ${type.resource} (no OpenAPI schema)`);
  } else if (mediaType !== 'application/merge-patch+json' && mediaType !== 'application/json-patch+json') {
    throw new ApiError(415, 'UnsupportedMediaType', ACCEPTED_PATCHES);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(ctx.rawBody);
  } catch {
    throw badRequest('error decoding patch: unexpected end of JSON input');
  }
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  const old = present(type, svc.store.get(resourceKey(type), ns, ctx.info.name!));
  if (!old) throw notFound(type.resource, type.group, ctx.info.name!);
  let patched: Obj;
  if (mediaType === 'application/json-patch+json') {
    if (!Array.isArray(parsed)) {
      throw badRequest(
        `error decoding patch: json: cannot unmarshal ${isPlainObject(parsed) ? 'object' : typeof parsed} into Go value of type []handlers.jsonPatchOp`,
      );
    }
    patched = jsonPatch(old, parsed);
  } else if (strategic) {
    if (!isPlainObject(parsed)) throw badRequest('error decoding patch: the patch is not a JSON object');
    patched = strategicMergePatch(old, parsed, strategicSchema);
  } else {
    patched = mergePatch(old, parsed) as Obj;
  }
  const unknown = ctx.fieldValidation === 'Strict' && type.prune ? type.prune(clone(patched)) : [];
  if (unknown.length) {
    // The 422 quotes the patched object, managedFields included (04 #8); a strategic merge patch's quotes the patch.
    const why = `strict decoding error: ${unknown.map((u) => `unknown field ${JSON.stringify(u)}`).join(', ')}`;
    throw patchDecodeError(strategic ? goMapString(parsed) : patchedJson(old, patched, type.custom), why);
  }
  if (!isPlainObject(patched.metadata)) patched.metadata = {};
  patched.apiVersion = old.apiVersion;
  patched.kind = old.kind;
  return update(svc, ctx, patched, { fromPatch: true, old });
}
