import { ApiError, details, fieldErr, invalid, notFound } from '../errors';
import { present, resourceKey, toStored, type ResourceType } from '../resources';
import type { Store } from '../store';
import { isPlainObject, rfc3339, type Obj } from '../types';
import type { HandlerResult, RequestContext, ServerServices } from './context';

const POLICIES = ['Foreground', 'Background', 'Orphan'];

function preconditionFailed(
  type: ResourceType,
  name: string,
  what: string,
  wanted: string,
  actual: string,
  tail: string,
) {
  const q = type.group ? `${type.kind}.${type.group}` : type.kind;
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${q} "${name}": the ${what} in the precondition (${wanted}) does not match the ${what} in record (${actual}). ${tail}`,
    details(name, type.group, type.kind),
  );
}

function successStatus(type: ResourceType, obj: Obj): Obj {
  const d = details(obj.metadata.name, type.group, type.resource);
  d.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: d };
}

/**
 * Deletes now, or marks for deletion when finalizers (own, `foregroundDeletion`, `orphan`) must
 * run first: deletionTimestamp, deletionGracePeriodSeconds 0, generation +1 (07 #4, #25, #34).
 */
export function deleteObject(
  store: Store,
  type: ResourceType,
  obj: Obj,
  policy: string | undefined,
  now: Date,
  dryRun = false,
): { status: number; body: Obj; deleted: boolean } {
  const key = resourceKey(type);
  const meta = obj.metadata;
  if (meta.deletionTimestamp) return { status: 200, body: obj, deleted: false };
  if (type.markDeleted) {
    // Namespaces: Terminating first, the namespace controller removes them (15 #5).
    type.markDeleted(obj, now);
    if (dryRun) return { status: 200, body: obj, deleted: false };
    return {
      status: 200,
      body: present(type, store.put(key, toStored(type, obj), 'MODIFIED')),
      deleted: false,
    };
  }
  const finalizers: string[] = [...(meta.finalizers ?? [])];
  const effective = policy ?? type.defaultPropagation;
  if (effective === 'Foreground' && !finalizers.includes('foregroundDeletion'))
    finalizers.push('foregroundDeletion');
  if (effective === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
  if (finalizers.length === 0) {
    if (!dryRun) store.remove(key, meta.namespace, meta.name);
    return { status: 200, body: successStatus(type, obj), deleted: true };
  }
  meta.finalizers = finalizers;
  meta.deletionTimestamp = rfc3339(now);
  meta.deletionGracePeriodSeconds = 0;
  if (type.generation) meta.generation = (meta.generation ?? 0) + 1;
  if (dryRun) return { status: 200, body: obj, deleted: false };
  return {
    status: 200,
    body: present(type, store.put(key, toStored(type, obj), 'MODIFIED')),
    deleted: false,
  };
}

export function del(svc: ServerServices, ctx: RequestContext): HandlerResult {
  const type = ctx.type;
  let options: Obj = {};
  if (ctx.rawBody.trim()) {
    const parsed = JSON.parse(ctx.rawBody) as unknown;
    if (isPlainObject(parsed)) options = parsed;
  }
  const policy = ctx.query.get('propagationPolicy') ?? (options.propagationPolicy as string | undefined);
  if (policy !== undefined && policy !== null && !POLICIES.includes(policy)) {
    throw invalid('DeleteOptions', 'meta.k8s.io', '', [
      fieldErr.notSupported('propagationPolicy', policy, [...POLICIES, 'nil']),
    ]);
  }
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  const name = ctx.info.name!;
  const obj = present(type, svc.store.get(resourceKey(type), ns, name));
  if (!obj) throw notFound(type.resource, type.group, name);
  const pre = (options.preconditions ?? {}) as { uid?: string; resourceVersion?: string };
  if (pre.uid && pre.uid !== obj.metadata.uid) {
    throw preconditionFailed(
      type,
      name,
      'UID',
      pre.uid,
      obj.metadata.uid,
      'The object might have been deleted and then recreated',
    );
  }
  if (pre.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
    throw preconditionFailed(
      type,
      name,
      'ResourceVersion',
      pre.resourceVersion,
      obj.metadata.resourceVersion,
      'The object might have been modified',
    );
  }
  type.beforeDelete?.(obj, svc);
  const result = deleteObject(svc.store, type, obj, policy ?? undefined, svc.now(), ctx.dryRun);
  if (!ctx.dryRun) {
    svc.onStored?.(type, obj, result.deleted ? 'DELETED' : 'MODIFIED');
    svc.afterWrite();
  }
  return { status: result.status, body: result.body };
}
