import { ApiError, badRequest, notEmulated, notFound } from '../errors';
import type { HandlerResult, RequestContext, ServerServices } from '../handlers/context';
import { jsonPatch, mergePatch } from '../handlers/patch';
import { update } from '../handlers/write';
import { apiVersionOf, present, resourceKey, type ResourceType } from '../resources';
import { clone, deepEqual, isPlainObject, type Obj } from '../types';
import { nestedInt64, nestedString, setNested, type ScalePaths } from './scalePaths';

/** scaleFromCustomResource: an autoscaling/v1 Scale read from the custom resource's paths (18 #92). */
function scaleOf(cr: Obj, paths: ScalePaths): Obj {
  const spec = nestedInt64(cr, paths.specReplicasPath);
  const status = nestedInt64(cr, paths.statusReplicasPath);
  const selector = paths.labelSelectorPath ? nestedString(cr, paths.labelSelectorPath).value : '';
  const meta = cr.metadata;
  const scale: Obj = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: spec.value ? { replicas: spec.value } : {},
    status: { replicas: status.value },
  };
  if (!meta.namespace) delete scale.metadata.namespace;
  if (selector) scale.status.selector = selector;
  return scale;
}

/** The field manager of a write: `fieldManager`, else the User-Agent's first part (`node-fetch`). */
function managerOf(ctx: RequestContext): string {
  return ctx.query.get('fieldManager') || (ctx.userAgent ?? '').split('/')[0]!;
}

/** The managedFields entry through which /scale owns the replicas field (fieldsV1 of its path). */
function replicasEntry(type: ResourceType, paths: ScalePaths, manager: string): Obj {
  const fieldsV1: Obj = {};
  let cur = fieldsV1;
  for (const f of paths.specReplicasPath.replace(/^\./, '').split('.')) {
    cur[`f:${f}`] = {};
    cur = cur[`f:${f}`];
  }
  return { manager, operation: 'Update', apiVersion: apiVersionOf(type), fieldsType: 'FieldsV1', fieldsV1 };
}

/**
 * The first write through /scale by a manager moves the ownership of the replicas field to an
 * entry of its own in managedFields: the object changes even when the replicas do not (18 #95,
 * a new resourceVersion). Returns the stored object with that entry, and whether it was added.
 */
function withReplicasOwner(cr: Obj, entry: Obj): { obj: Obj; added: boolean } {
  const entries: Obj[] = cr.metadata.managedFields ?? [];
  if (entries.some((e) => deepEqual(e, entry))) return { obj: cr, added: false };
  const obj = clone(cr);
  obj.metadata.managedFields = [...entries, entry];
  return { obj, added: true };
}

function decodeScale(ctx: RequestContext, old: Obj): Obj {
  let body: unknown;
  try {
    body = JSON.parse(ctx.rawBody);
  } catch (e) {
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: ${(e as Error).message}`);
  }
  if (ctx.method === 'PUT') return body as Obj;
  const mediaType = ctx.contentType.split(';')[0]!.trim();
  if (
    mediaType === 'application/merge-patch+json' ||
    mediaType === 'application/strategic-merge-patch+json'
  ) {
    if (!isPlainObject(body)) throw badRequest('error decoding patch: the patch is not a JSON object');
    return mergePatch(old, body) as Obj;
  }
  if (mediaType === 'application/json-patch+json') {
    if (!Array.isArray(body)) throw badRequest('error decoding patch: the patch is not a JSON array');
    return jsonPatch(old, body);
  }
  throw notEmulated(`PATCH of /scale as ${mediaType}`);
}

/**
 * GET, PUT and PATCH of a custom resource's /scale: the Scale is read from the resource, the new
 * replicas written to it, and the write validated as an update of the resource itself (18 #93, #94).
 */
export function scaleSubresource(svc: ServerServices, ctx: RequestContext): HandlerResult {
  const type = ctx.type;
  const paths = type.scale!;
  const name = ctx.info.name!;
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  if (!name) throw notEmulated(`${ctx.method} of /scale without a name`);
  const cr = present(type, svc.store.get(resourceKey(type), ns, name));
  if (!cr) throw notFound(type.resource, type.group, name);
  if (ctx.method === 'GET') return { status: 200, body: scaleOf(cr, paths) };
  if (ctx.method !== 'PUT' && ctx.method !== 'PATCH') throw notEmulated(`${ctx.method} of /scale`);
  const next = decodeScale(ctx, scaleOf(cr, paths));
  const replicas = next.spec?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw new ApiError(
      400,
      'BadRequest',
      `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
    );
  }
  const owned = withReplicasOwner(cr, replicasEntry(type, paths, managerOf(ctx)));
  const body = clone(owned.obj);
  setNested(body, paths.specReplicasPath, replicas);
  // A resourceVersion in the Scale is a precondition on the resource.
  body.metadata.resourceVersion = next.metadata?.resourceVersion || cr.metadata.resourceVersion;
  const mainCtx: RequestContext = { ...ctx, info: { ...ctx.info, subresource: undefined } };
  const result = update(svc, mainCtx, body, { fromPatch: true, old: owned.obj, alwaysWrite: owned.added });
  return { status: 200, body: scaleOf(result.body, paths) };
}
